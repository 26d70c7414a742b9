"""Export: a bot downloads its own memory as a zip (Markdown files + facts.jsonl)."""

import io

from django.http import HttpRequest, HttpResponse
from ninja import Router

from memoryconsole.api.errors import errors
from memstore.calls.export import bot_own_files, memory_export

router = Router(tags=["export"])

ZIP = {"content": {"application/zip": {"schema": {"type": "string", "format": "binary"}}}}


@router.get(
    "/export",
    response={200: None, **errors(401)},
    operation_id="export_memory",
    url_name="export_memory",
    openapi_extra={"responses": {200: {"description": "A zip file.", **ZIP}}},
)
def export_memory(request: HttpRequest):
    """The bot's own memory as a zip: its Markdown files as on disk (hidden facts left out) and
    facts.jsonl with one line of metadata per fact. Import it elsewhere with
    `manage.py import openteam`."""
    bot = request.auth.bot  # type: ignore[attr-defined]
    buffer = io.BytesIO()
    memory_export(files=bot_own_files(bot=bot), out=buffer, include_hidden=False)
    response = HttpResponse(buffer.getvalue(), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{bot}-memory.zip"'
    return response
