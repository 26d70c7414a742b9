"""A person's memory as a download: a zip of every Markdown file of their user memory (every
bot's shard, MEMORY_ROOT's layout kept, so unzipped it is a memory folder again) and
`about-me.json`, the metadata of each fact (id, date, text, bot, file, room, visibility, meta).

Files are read straight from disk (the files are the truth); the metadata comes from the index,
synced first. Who may export whose memory is the caller's business (the About me page).
"""

import io
import json
import zipfile

from memstore.index import memory_root
from memstore.paths import Scope, check_person, scope_shards, shard_files
from memstore.selectors import facts_list

EXPORT_META = "about-me.json"


def person_export(*, person: str) -> bytes:
    """The zip of the person's user memory files and `about-me.json`."""
    root = memory_root()
    scope = Scope("user", check_person(person))
    files = [rel for shard in scope_shards(root, scope) for rel in shard_files(root, shard)]
    facts = facts_list(scopes=[scope], limit=100_000).items
    meta = {
        "person": person,
        "files": files,
        "facts": [
            {
                "id": f.fact_id,
                "day": f.day.isoformat(),
                "text": f.text,
                "tier": f.tier,
                "bot": f.shard_bot,
                "file": f.file,
                "room": f.room,
                "visibility": f.visibility,
                "meta": f.meta,
            }
            for f in facts
        ],
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for rel in files:
            archive.write(root / rel, rel)
        archive.writestr(EXPORT_META, json.dumps(meta, ensure_ascii=False, indent=2) + "\n")
    return buffer.getvalue()
