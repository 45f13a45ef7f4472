module pulumi-dynamic-host/bench/tracer

go 1.26.0

require golang.org/x/net v0.60.0
