#!/bin/sh
# t_upper: the tiny test UDF for chlocal's bats suite: upper-cases each TabSeparated row.
exec awk '{ print toupper($0); fflush() }'
