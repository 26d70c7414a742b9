"""A person's memory as a download (the About me page's "Export my memory"): the workspace
export (`memstore.privacy.export`) of their user memory, every bot's shard: a zip of the Markdown
files (MEMORY_ROOT's layout kept, so unzipped it is a memory folder again) and `facts.jsonl`, one
JSON object of metadata per fact (id, date, text, tier, bot, file, line, visibility, metadata
such as `src=room:…`); and, copied as they are, each shard's `history.jsonl` (every change), their
"About you" note with its earlier versions, and the history of their memory controls
(`controls.jsonl`), with `controls.json` saying how the controls stand now. Who may export whose
memory is the caller's business (the About me page).
"""

import io
import json
from pathlib import Path

from memstore.facts.history import HISTORY_FILE
from memstore.facts.paths import Scope, check_person, memory_root, scope_shards
from memstore.privacy.export import export_files, memory_export
from memstore.rules.controls import AUDIT_FILE, person_controls

CONTROLS_FILE = "controls.json"


def person_export(*, person: str) -> bytes:
    """The zip of the person's user memory files, their facts' metadata, histories, note and
    controls."""
    controls = person_controls(person=person)
    state = {"person": person, "paused": controls.paused, "topics": list(controls.topics)}
    buffer = io.BytesIO()
    memory_export(
        files=export_files(person=person),
        out=buffer,
        raw=person_records(person=person),
        written={CONTROLS_FILE: (json.dumps(state, indent=2) + "\n").encode()},
    )
    return buffer.getvalue()


def person_records(*, person: str) -> list[str]:
    """The files beside the person's memory that are theirs too (relative paths that exist):
    each shard's history, the About you note and its versions, the controls' history."""
    root = memory_root()
    home = Path("users") / check_person(person)
    found = [
        f"{shard.rel}/{HISTORY_FILE}"
        for shard in scope_shards(root, Scope("user", person))
        if (root / shard.rel / HISTORY_FILE).is_file()
    ]
    notes = root / home / "notes"
    if (notes / "about-you.md").is_file():
        found.append(str(home / "notes" / "about-you.md"))
    versions = notes / "versions" / "about-you"
    if versions.is_dir():
        found += sorted(str(p.relative_to(root)) for p in versions.glob("*.md") if p.is_file())
    if (root / home / AUDIT_FILE).is_file():
        found.append(str(home / AUDIT_FILE))
    return found
