"""What an operator sees of the proxy at work: per-request metrics, the access log and (optional) traces.

A foundation package, below everything that serves requests: :mod:`.exchange` (one request's facts, noted where they
happen), :mod:`.http_metrics` (their Prometheus series), :mod:`.access` (the access log), :mod:`.observer` (the start
and end of a request) and :mod:`.tracing` (OpenTelemetry, imported only when ``tracing.enabled``).
"""
