"""Console views: parse the request, call one selector or service, render."""

from django.shortcuts import render

from memstore.selectors import workspace_counts


def status_page(request):
    """Every scope and shard with its fact count, straight from the (freshly synced) index."""
    return render(request, "web/status.html", {"counts": workspace_counts()})
