#!/bin/sh
# A canned weather desk. gramc runs it for a tool call with the tool's
# arguments, a JSON object, on standard input, and gives the model what it
# prints.
args=$(cat)
city=$(printf '%s' "$args" | sed -n 's/.*"city": *"\([^"]*\)".*/\1/p')
case "$1" in
getForecast)
	printf '[{"city":"%s","date":"2026-01-15","summary":"light snow","highC":-2}]\n' "$city"
	;;
saveHomeCity)
	user=$(printf '%s' "$args" | sed -n 's/.*"userId": *"\([^"]*\)".*/\1/p')
	echo "Saved $city as the home city of $user."
	;;
*)
	echo "unknown tool $1" >&2
	exit 2
	;;
esac
