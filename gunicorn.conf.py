"""Gunicorn settings for `./dev serve`; gunicorn also reads this file by itself when started from
the repository folder (`gunicorn memoryconsole.wsgi`). Command-line flags override it.

Threaded workers: each of `workers` processes serves up to `threads` requests at once, and a
connection that sends nothing waits in the worker's poller, not in a thread. A client that
sends its headers or body very slowly holds one thread while it does, so slow clients stall
the server only once they hold every thread (16 here), where the default `sync` worker is
stalled by as many slow clients as it has processes (two). tests/test_gunicorn.py measures it.
Behind a proxy that buffers requests (nginx does by default) slow clients never reach us.
"""

worker_class = "gthread"
workers = 2
threads = 8
# Seconds a worker may go silent before it is restarted (a stuck request), and that a stopping
# worker gets to finish what it is doing.
timeout = 30
graceful_timeout = 30
# Seconds an idle keep-alive connection is kept open.
keepalive = 5
