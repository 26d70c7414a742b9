"""Reading a Mem0 export: the JSON its `get_all` returns, in every shape it has had.

    [ {memory}, … ]                                      v1 (a plain list)
    {"count": N, "next": …, "previous": …, "results": […]} v2 (the platform's pages)
    {"results": […], "relations": […]}                   v3 (the open-source Memory, graph on)
    {"memories": […]}                                    an export file

Each memory has `id`, `memory` (the text), `user_id`, `agent_id`, `run_id`, `categories`,
`metadata`, `created_at`, `updated_at`, and on the platform `expiration_date` and `immutable`.
Scopes: a memory with a `user_id` is about that person (the id is the person's name unless
`--map-user ID=PERSON` or `--person` says otherwise) and goes to their user memory, which needs
the person registered (created only with --create-people); one with only a `run_id` belongs to
that run (a session): it goes to the legacy room scope under the run's id, read-only; the rest is
the bot's own (`--map-agent AGENT_ID=SLUG` picks the bot for an `agent_id`), or --project's.
`created_at` dates the fact; `expiration_date` becomes `until=`; categories become `category=`
(a preferences category makes it `type=preference`); `immutable` memories are pinned. A graph's
relations are entity triples, not facts: they are reported. The source line is where the
memory's id (or its entry) stands in the file.
"""

import json
from pathlib import Path

from memstore.facts.paths import check_person, check_room, check_slug
from memstore.imports.base import Found, Item, Skipped, Target, is_valid, meta_value, source
from memstore.imports.walk import day_of, read_text


def read_mem0(path: Path, target: Target) -> list[Found]:
    """One item per memory in the export (or why it is skipped)."""
    root = path.resolve() if path.is_symlink() else path
    if root.is_dir():
        return [Skipped(source(root, root, 0), "a Mem0 export is one JSON file, not a folder")]
    raw = read_text(root, root)
    if isinstance(raw, Skipped):
        return [raw]
    try:
        data = json.loads(raw)
    except ValueError as exc:
        return [Skipped(source(root, root, 0), f"not a Mem0 JSON export: {exc}")]
    entries = _entries(data)
    if entries is None:
        return [Skipped(source(root, root, 0), "not a Mem0 export: no list of memories")]
    found: list[Found] = []
    if isinstance(data, dict) and data.get("relations"):
        found.append(
            Skipped(
                source(root, root, 1),
                f"{len(data['relations'])} graph relations: entity triples are not facts",
            )
        )
    for number, entry in enumerate(entries, start=1):
        src = source(root, root, _line_of(raw, entry, number))
        if not isinstance(entry, dict) or not str(entry.get("memory") or "").strip():
            found.append(Skipped(src, "an entry without memory text"))
            continue
        found.append(_item(entry, src, target))
    return found


def _entries(data: object) -> list | None:
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        for key in ("results", "memories"):
            if isinstance(data.get(key), list):
                return data[key]
    return None


def _item(entry: dict, src: str, target: Target) -> Item | Skipped:
    try:
        day = day_of(entry.get("created_at")) or day_of(entry.get("updated_at"))
        until = day_of(entry.get("expiration_date"))
    except ValueError as exc:
        return Skipped(src, f"an invalid date: {exc}")
    meta = _meta(entry, until)
    bot = target.agents.get(str(entry.get("agent_id") or "")) or target.bot or ""
    fields = {
        "text": str(entry["memory"]).strip(),
        "src": src,
        "day": day,
        "meta": meta,
        "bot": bot,
    }
    if not is_valid(check_slug, bot):
        return Skipped(src, f"agent {entry.get('agent_id')!r}: map it to a bot with --map-agent")
    user = str(entry.get("user_id") or "")
    if user:
        person = target.people.get(user) or target.person or user
        if not is_valid(check_person, person):
            return Skipped(src, f"user id {user!r} is not a person's name: map it with --map-user")
        return Item(scope="user", person=person, **fields)
    if target.project:
        return Item(scope="project", project=target.project, **fields)
    run = str(entry.get("run_id") or "")
    if run and not entry.get("agent_id"):
        if not is_valid(check_room, run):
            return Skipped(src, f"run id {run!r} can't be a room id")
        return Item(scope="room", room=run, **fields)
    return Item(scope="bot", **fields)


def _meta(entry: dict, until) -> dict[str, str]:
    meta: dict[str, str] = {}
    categories = [str(c) for c in entry.get("categories") or [] if str(c).strip()]
    if categories:
        if any("preference" in c.lower() for c in categories):
            meta["type"] = "preference"
        meta["category"] = meta_value(",".join(categories))
    if until:
        meta["until"] = until.isoformat()
    if entry.get("immutable") is True:
        meta["pin"] = "true"
    if entry.get("run_id") and entry.get("user_id"):
        meta["run"] = meta_value(entry["run_id"])
    return meta


def _line_of(raw: str, entry: object, number: int) -> int:
    if isinstance(entry, dict) and entry.get("id"):
        at = raw.find(json.dumps(str(entry["id"])))
        if at >= 0:
            return raw.count("\n", 0, at) + 1
    return number
