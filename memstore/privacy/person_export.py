"""A person's memory as a download (the About me page's "Export my memory"): the workspace
export (`memstore.privacy.export`) of their user memory, every bot's shard: a zip of the Markdown files
(MEMORY_ROOT's layout kept, so unzipped it is a memory folder again) and `facts.jsonl`, one JSON
object of metadata per fact (id, date, text, tier, bot, file, line, visibility, metadata such as
`src=room:…`). Who may export whose memory is the caller's business (the About me page).
"""

import io

from memstore.privacy.export import export_files, memory_export


def person_export(*, person: str) -> bytes:
    """The zip of the person's user memory files and their facts' metadata."""
    buffer = io.BytesIO()
    memory_export(files=export_files(person=person), out=buffer)
    return buffer.getvalue()
