"""Reading an OpenTeam agent-data folder as OpenTeam writes it, or a Memory Console export's
Markdown tree (the same shape, with slugs and people's names where OpenTeam has UUIDs).

OpenTeam's layout (its server's agent-data store and memory files, v0.0.3):

    agents/<uuid>/profile.json            {"name": …, "description": …}: the agent's name
    agents/<uuid>/projects.json           {"projects": [<slug>, …]}: the projects it is in
    agents/<uuid>/memory/                 its own memory: profile.md, log/YYYY-MM.md
    agents/<uuid>/memory/notes.md         pre-log notes (OpenTeam migrates them as [note] facts)
    agents/<uuid>/memory/.dreaming/explicit/<fact id>.memory   the fact was saved on purpose
    agents/<uuid>/conversations/<id>/memory/   legacy per-conversation memory
    agents/<id>/group.json                a group chat's folder, not an agent
    user-memory/by-agent/<uuid>/          the server's one human, one shard per writing agent
    projects/<slug>/project.md            front matter naming the project
    projects/<slug>/memory/by-agent/<uuid>/

A Memory Console export adds `users/<person>/memory/by-agent/<bot>/` and
`rooms/<room>/memory/by-agent/<bot>/`, and names bots by slug; its lines are restored verbatim and a bot's project shard there
stands for its membership (joined with --create-projects). Each agent becomes a bot named
from profile.json (or `--map-agent UUID=SLUG`); the one human is `--person`; legacy conversation
memory goes to the room scope, read-only as it is for bots. A shard whose writer is not an agent
of the folder is reported, as OpenTeam itself warns. Only memory folders are read: settings,
skills, routines, transcripts and databases are not memory.
"""

import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from memstore.errors import InvalidName
from memstore.facts.markdown import parse_text
from memstore.facts.paths import check_person, check_room, check_slug, is_log_name
from memstore.imports.base import (
    Agent,
    Found,
    Item,
    Join,
    Skipped,
    Target,
    is_valid,
    slug_of,
    source,
)
from memstore.imports.walk import front_matter, read_json, read_text, source_files
from memstore.privacy.export import FACTS_FILE

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", re.I)
_DATED = re.compile(r"\s*[-*]\s+\((?P<day>\d{4}-\d{2}-\d{2})\)\s")
_TOPS = ("agents", "user-memory", "users", "projects", "rooms")


class _Place:
    """Where a memory folder's facts go: the writing bot (or why there is none) and the scope."""

    def __init__(self, bot: str | None, why: str = "", **scope: str | None) -> None:
        self.bot, self.why, self.scope = bot, why, scope


def read_openteam(path: Path, target: Target) -> list[Found]:
    """Every fact of the memory folders under `path`, bound for the bot and scope its folder
    names, with the agents and memberships the folder declares."""
    root = path.resolve() if path.is_symlink() else path
    if not any((root / top).is_dir() for top in _TOPS):
        if target.bot is None:
            return [
                Skipped(source(root, root, 0), "a single memory folder: name its bot with --bot")
            ]
        return list(_memory(root, root, _Place(target.bot, scope="bot"), bot_folder=True))
    found: list[Found] = []
    writers = _agents(root, target, found)
    for rel, place in _shards(root, target, writers, found):
        if place.bot is None:
            found.append(Skipped(f"{rel}:0", place.why))
        else:
            found.extend(_memory(root, root / rel, place, bot_folder=False))
    if (root / FACTS_FILE).is_file():  # a Memory Console export: restored as it was
        found = [replace(f, verbatim=True) if isinstance(f, Item) else f for f in found]
        shards = {(f.bot, f.project) for f in found if isinstance(f, Item) and f.project}
        found += [Join(bot, p, f"projects/{p}/memory/by-agent/{bot}") for bot, p in sorted(shards)]
    return found


def _agents(root: Path, target: Target, found: list[Found]) -> dict[str, _Place]:
    """Each agent folder's bot (declared, with its projects), and the legacy memory it holds."""
    folders = _children(root, "agents", found)
    agents = [f for f in folders if not (root / "agents" / f / "group.json").exists()]
    for group in sorted(set(folders) - set(agents)):
        found.append(Skipped(f"agents/{group}:0", "a group chat's folder, not an agent"))
    single = target.bot if len(agents) == 1 and target.bot else None
    if target.bot and not single:
        found.append(
            Skipped(
                ".:0",
                f"--bot names one bot, but this folder holds {len(agents)} "
                "agents: each becomes its own bot (map them with --map-agent)",
            )
        )
    writers: dict[str, _Place] = {}
    taken: dict[str, str] = {}
    for folder in agents:
        place, agent = _agent_bot(root, folder, target.agents.get(folder) or single, found)
        if place.bot and place.bot in taken:
            place = _Place(
                None,
                f"agent {folder} would be bot {place.bot!r} like agent "
                f"{taken[place.bot]}: map one with --map-agent {folder}=SLUG",
            )
        if place.bot:
            taken[place.bot] = folder
            # Only the agent the bot is made for is declared (the report names it).
            found.append(agent)
        writers[folder] = place
        if place.bot is None:
            found.append(Skipped(f"agents/{folder}:0", place.why))
            continue
        found.extend(_projects(root, folder, place.bot))
        found.extend(
            _memory(
                root,
                root / "agents" / folder / "memory",
                _Place(place.bot, scope="bot"),
                bot_folder=True,
            )
        )
        for conversation in _children(root, f"agents/{folder}/conversations", found):
            rel = f"agents/{folder}/conversations/{conversation}/memory"
            found.extend(
                _memory(root, root / rel, _room(place.bot, conversation), bot_folder=False)
            )
    return writers


def _agent_bot(
    root: Path, folder: str, mapped: str | None, found: list[Found]
) -> tuple[_Place, Agent | None]:
    """The bot an agent folder becomes (or why none), and the agent as the import declares it."""
    rel = f"agents/{folder}/profile.json"
    profile = read_json(root / rel, root) if (root / rel).exists() else {}
    if isinstance(profile, Skipped):
        found.append(profile)
        profile = {}
    name = str(profile.get("name") or "") if isinstance(profile, dict) else ""
    if mapped:
        bot = mapped
    elif _UUID.fullmatch(folder):
        bot = slug_of(name)
        if not bot:
            return _Place(
                None,
                f"agent {folder}'s profile.json names no usable bot name: "
                f"map it with --map-agent {folder}=SLUG",
            ), None
    else:
        bot = folder  # a Memory Console export names bots by slug
    try:
        check_slug(bot)
    except InvalidName as exc:
        return _Place(None, f"{exc.message} (agent {folder}: map it with --map-agent)"), None
    origin = folder if _UUID.fullmatch(folder) else ""
    return _Place(bot, scope="bot"), Agent(bot=bot, name=name[:120], src=f"{rel}:1", origin=origin)


def _projects(root: Path, folder: str, bot: str) -> Iterator[Found]:
    rel = f"agents/{folder}/projects.json"
    if not (root / rel).exists():
        return
    value = read_json(root / rel, root)
    if isinstance(value, Skipped):
        yield value
        return
    listed = value.get("projects") if isinstance(value, dict) else None
    if not isinstance(listed, list):
        yield Skipped(f"{rel}:1", 'projects.json: no "projects" list')
        return
    for slug in listed:
        try:
            yield Join(bot=bot, project=check_slug(str(slug), "project"), src=rel)
        except InvalidName as exc:
            yield Skipped(f"{rel}:1", f"projects.json: {exc.message}")


def _shards(root: Path, target: Target, writers: dict[str, _Place], found: list[Found]):
    """(folder, place) of every shared-scope shard: user, project and legacy room memory."""
    for writer in _children(root, "user-memory/by-agent", found):
        place = _writer(writer, writers, target)
        if place.bot and not target.person:
            place = _Place(None, "user memory of the server's one human: name them with --person")
        yield (
            f"user-memory/by-agent/{writer}",
            _Place(place.bot, place.why, scope="user", person=target.person),
        )
    for person in _children(root, "users", found):
        name = target.people.get(person, person)
        for writer in _children(root, f"users/{person}/memory/by-agent", found):
            place = _writer(writer, writers, target)
            if place.bot and not is_valid(check_person, name):
                place = _Place(None, f"{name!r} is not a person's name: map it with --map-user")
            yield (
                f"users/{person}/memory/by-agent/{writer}",
                _Place(place.bot, place.why, scope="user", person=name),
            )
    for folder in _children(root, "projects", found):
        slug = target.projects.get(folder, folder)
        found.extend(_project_file(root, folder))
        for writer in _children(root, f"projects/{folder}/memory/by-agent", found):
            place = _writer(writer, writers, target)
            if place.bot and not is_valid(lambda s: check_slug(s, "project"), slug):
                place = _Place(None, f"{slug!r} is not a project slug: map it with --map-project")
            yield (
                f"projects/{folder}/memory/by-agent/{writer}",
                _Place(place.bot, place.why, scope="project", project=slug),
            )
    for room in _children(root, "rooms", found):
        for writer in _children(root, f"rooms/{room}/memory/by-agent", found):
            place = _writer(writer, writers, target)
            room_place = _room(place.bot, room) if place.bot else place
            yield f"rooms/{room}/memory/by-agent/{writer}", room_place


def _writer(name: str, writers: dict[str, _Place], target: Target) -> _Place:
    if name in writers:
        return writers[name]
    if mapped := target.agents.get(name):
        return _Place(mapped if is_valid(check_slug, mapped) else None, f"{mapped!r} is no slug")
    if not _UUID.fullmatch(name) and is_valid(check_slug, name):
        return _Place(name)  # an export's shard of a bot with no folder of its own
    return _Place(
        None,
        f"a writer shard of {name}, which is not an agent in this folder (no "
        f"agents/{name}/profile.json): map it with --map-agent {name}=SLUG",
    )


def _room(bot: str | None, room: str) -> _Place:
    if not is_valid(check_room, room):
        return _Place(None, f"{room!r} can't be a room id: legacy memory skipped")
    return _Place(bot, scope="room", room=room)


def _project_file(root: Path, folder: str) -> Iterator[Skipped]:
    rel = f"projects/{folder}/project.md"
    if not (root / rel).exists():
        return
    text = read_text(root / rel, root)
    if isinstance(text, Skipped):
        yield text
        return
    front, start = front_matter(text.splitlines())
    if not start or not front.get("name", "").strip():
        yield Skipped(f"{rel}:1", "project.md: no front matter naming the project")


def _memory(root: Path, folder: Path, place: _Place, *, bot_folder: bool) -> Iterator[Found]:
    """The facts of one memory folder (profile.md, log/YYYY-MM.md, and notes.md in an agent's
    own memory), bound for `place`."""
    rel = folder.relative_to(root).as_posix() if folder != root else ""
    if rel and _through_link(root, rel):
        yield Skipped(f"{rel}:0", "a symbolic link: links are never followed")
        return
    if not folder.is_dir():
        return
    files, links = source_files(folder, base=root)
    yield from links
    for file in files:
        rel = file.relative_to(folder).as_posix()
        tier = _tier_of(rel, bot_folder)
        if tier is None:
            yield Skipped(source(file, root, 0), "not a memory file (profile.md or log/YYYY-MM.md)")
            continue
        yield from _facts(file, root, folder, tier, place)


def _tier_of(rel: str, bot_folder: bool) -> str | None:
    if rel == "profile.md":
        return "profile"
    if rel.startswith("log/") and rel.count("/") == 1 and is_log_name(rel[4:]):
        return "log"
    if rel == "notes.md" and bot_folder:
        return "note"
    return None


def _facts(file: Path, root: Path, folder: Path, tier: str, place: _Place) -> Iterator[Found]:
    text = read_text(file, root)
    if isinstance(text, Skipped):
        yield text
        return
    for number, line in enumerate(parse_text(text), start=1):
        src = source(file, root, number)
        fact = line.fact
        if fact is None:
            if match := _DATED.match(line.raw):
                yield Skipped(src, f"a fact line with an invalid date ({match['day']})")
            elif line.raw.lstrip().startswith(("- ", "* ")):
                yield Skipped(src, "a bullet that is not a dated fact line")
            continue
        meta = dict(fact.meta)
        if _explicit(folder, fact.identity):
            meta.setdefault("pin", "true")
        if tier == "profile":
            body, kind = fact.text, "profile"
        else:
            body, kind = fact.body, fact.tag or tier
        yield Item(
            text=body,
            src=src,
            bot=place.bot or "",
            tier=kind,
            day=fact.day,
            meta=meta,
            scope=place.scope.get("scope") or "bot",
            person=place.scope.get("person"),
            project=place.scope.get("project"),
            room=place.scope.get("room"),
        )


def _explicit(folder: Path, identity: str) -> bool:
    # OpenTeam marks a fact saved on purpose (not learned) with an empty file named by its id,
    # the same id as ours (SHA-1 of the lower-cased, whitespace-collapsed text, 16 digits).
    marker = folder / ".dreaming" / "explicit" / f"{identity}.memory"
    try:
        return marker.lstat().st_mode & 0o170000 == 0o100000
    except OSError:
        return False


def _children(root: Path, rel: str, found: list[Found]) -> list[str]:
    """The folders directly in `rel` (sorted); a symbolic link among them is reported."""
    folder = root / rel
    if _through_link(root, rel):
        found.append(Skipped(f"{rel}:0", "a symbolic link: links are never followed"))
        return []
    if not folder.is_dir():
        return []
    names = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_symlink():
            found.append(
                Skipped(f"{rel}/{entry.name}:0", "a symbolic link: links are never followed")
            )
        elif entry.is_dir():
            names.append(entry.name)
    return names


def _through_link(root: Path, rel: str) -> bool:
    """Whether any folder on the way from `root` to `rel` is a symbolic link."""
    path = root
    for part in rel.split("/"):
        path = path / part
        if path.is_symlink():
            return True
    return False
