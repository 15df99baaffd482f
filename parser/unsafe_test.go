package parser

import "unsafe"

func unsafeStringData(s string) uintptr { return uintptr(unsafe.Pointer(unsafe.StringData(s))) }
