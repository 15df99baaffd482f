#!/bin/sh
# A canned order desk for the example tests (orders_test.gram and
# support_test.gram): the examples' bindings.gram binds each tool NAME to it
# as sh tools/orders.sh NAME, run in the examples directory. It reads
# the tool's arguments as JSON on standard input and prints a fixed result,
# so that recorded cassettes replay exactly.
args=$(cat)
id=$(printf '%s' "$args" | sed -n 's/.*"orderId": *\([0-9][0-9]*\).*/\1/p')
order='{"id":1042,"status":"open","items":[{"sku":"MUG-0001","quantity":2,"price":{"amount":9.5,"currency":"EUR"}}],"total":{"amount":19,"currency":"EUR"}}'
case "$1" in
findOrders)
	printf '[%s,{"id":977,"status":"shipped","items":[{"sku":"TEA-0042","quantity":1,"price":{"amount":12,"currency":"EUR"}}],"total":{"amount":12,"currency":"EUR"}}]\n' "$order"
	;;
getOrder)
	if [ "$id" = 1042 ]; then
		printf '%s\n' "$order"
	else
		echo "no order $id for this customer" >&2
		exit 1
	fi
	;;
getInvoice)
	if [ "$id" = 1042 ]; then
		printf '{"orderId":1042,"amount":19,"status":"due","dueDate":"2026-12-15"}\n'
	else
		echo "no invoice for order $id of this customer" >&2
		exit 1
	fi
	;;
trackParcel)
	if [ "$id" = 1042 ]; then
		printf '{"orderId":1042,"carrier":"DHL","status":"lost","lastSeen":"2026-11-24, Leipzig hub"}\n'
	else
		echo "no parcel for order $id of this customer" >&2
		exit 1
	fi
	;;
cancelOrder)
	if [ "$id" = 1042 ]; then
		printf '%s\n' "$order" | sed 's/"status":"open"/"status":"cancelled"/'
	else
		echo "no open order $id for this customer" >&2
		exit 1
	fi
	;;
*)
	echo "unknown tool $1" >&2
	exit 2
	;;
esac
