"""The API's endpoints, one router per resource: each parses a request, calls one memstore
function and shapes the answer; every request and response shape is in `memoryconsole.api.schemas`."""
