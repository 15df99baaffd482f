#!/usr/bin/env bash
# Draws images/icon.png (128x128): three nodes of a pattern joined by arrows on
# a rounded square. Needs Debian's imagemagick. Run from editors/vscode.
set -euo pipefail
convert=/usr/bin/convert
"$convert" -size 128x128 xc:none \
  -fill '#1e3a5f' -draw 'roundrectangle 4,4 123,123 22,22' \
  -stroke '#9ecbff' -strokewidth 6 -fill none \
  -draw 'line 38,44 86,44' -draw 'line 38,44 62,90' -draw 'line 86,44 62,90' \
  -stroke none -fill '#9ecbff' \
  -draw 'polygon 74,37 88,44 74,51' \
  -draw 'polygon 61,74 63,91 50,80' \
  -stroke '#ffffff' -strokewidth 5 -fill '#f6a623' -draw 'circle 38,44 38,29' \
  -fill '#4fd1c5' -draw 'circle 86,44 86,29' \
  -fill '#f56c8b' -draw 'circle 62,92 62,77' \
  -strip PNG32:images/icon.png
