"""`Client`: one bot talking in one room, over a pooled synchronous HTTP connection."""

from collections.abc import Iterable, Mapping
from typing import Any, Self, cast

import httpx2

from memory_console_client import calls
from memory_console_client.results import (
    Changes,
    ExchangeReceipt,
    Fact,
    FactPage,
    FactType,
    Feedback,
    FeedbackVerb,
    Forgetting,
    Prompt,
    PromptChanges,
    Recall,
    RoomKind,
    SavedFact,
    Scope,
    Tier,
    Visibility,
    WritableScope,
)


class Client:
    """Memory Console for one bot (its token) in one room (the context headers of every call).

    Use it as a context manager, or call `close()`. `in_room(...)` gives the same bot in
    another room, sharing the connection pool. A refused call raises a `MemoryConsoleError`
    subclass carrying the API's `code`.
    """

    def __init__(
        self,
        base_url: str,
        token: str,
        room_id: str,
        room_kind: RoomKind,
        person: str | None = None,
        projects: Iterable[str] = (),
        *,
        room_private: bool = False,
        ticket: str | None = None,
        timeout: float = 10.0,
        _http: httpx2.Client | None = None,
    ) -> None:
        self.room = calls.Room(
            room_id, room_kind, person, calls.project_list(projects), ticket, room_private
        )
        self.base_url = base_url.rstrip("/")
        self._token, self._timeout = token, timeout
        self._http = _http or httpx2.Client(**calls.client_options(base_url, token, timeout))
        self._owns_http = _http is None

    def in_room(
        self,
        room_id: str,
        room_kind: RoomKind,
        person: str | None = None,
        projects: Iterable[str] = (),
        *,
        room_private: bool = False,
        ticket: str | None = None,
    ) -> "Client":
        """The same bot in another room (closing it leaves this client's connections open);
        `room_private=True`: a group room that is a private conversation."""
        return Client(
            self.base_url,
            self._token,
            room_id,
            room_kind,
            person,
            projects,
            room_private=room_private,
            ticket=ticket,
            timeout=self._timeout,
            _http=self._http,
        )

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _send(self, call: calls.Call) -> Any:
        try:
            response = self._http.request(**calls.request_of(call, self.room))
        except httpx2.TransportError as error:
            raise calls.unreachable(self.base_url, error) from error
        return calls.read(response)

    # --- the calls ------------------------------------------------------------------------------

    def remember(
        self,
        text: str,
        *,
        scope: WritableScope = "bot",
        project: str | None = None,
        tier: Tier = "log",
        type: FactType | None = None,
        importance: float | None = None,
        visibility: Visibility | None = None,
        src: str | None = None,
        pin: bool | None = None,
        idempotency_key: str | None = None,
        until: str | None = None,
        review: str | None = None,
        weight: float | None = None,
    ) -> SavedFact:
        """Save a fact (scope bot, user in direct rooms, or project with `project=`). If the
        scope already holds it, nothing is written and the answer has `existed: True`."""
        call = calls.remember(
            text,
            scope=scope,
            project=project,
            tier=tier,
            type=type,
            importance=importance,
            visibility=visibility,
            src=src,
            pin=pin,
            idempotency_key=idempotency_key,
            until=until,
            review=review,
            weight=weight,
        )
        return cast(SavedFact, self._send(call))

    def recall(self, query: str, *, limit: int | None = None, neighbours: bool = False) -> Recall:
        """Search what this room may read, by words and meaning (20 results unless `limit`)."""
        return cast(Recall, self._send(calls.recall(query, limit=limit, neighbours=neighbours)))

    def list_facts(
        self,
        *,
        scope: Scope | None = None,
        project: str | None = None,
        tier: Tier | None = None,
        type: FactType | None = None,
        month: str | None = None,
        q: str | None = None,
        as_of: str | None = None,
        offset: int | None = None,
        limit: int | None = None,
        expired: bool | None = None,
    ) -> FactPage:
        """Facts this room may read, newest first (a page: `items`, `total`, `has_more`)."""
        call = calls.list_facts(
            scope=scope,
            project=project,
            tier=tier,
            type=type,
            month=month,
            q=q,
            as_of=as_of,
            offset=offset,
            limit=limit,
            expired=expired,
        )
        return cast(FactPage, self._send(call))

    def edit(
        self,
        fact_id: str,
        text: str,
        *,
        expected_text: str | None = None,
        scope: WritableScope | None = None,
        project: str | None = None,
        until: str | None = None,
        review: str | None = None,
    ) -> Fact:
        """New text for a fact, in place. With `expected_text`, a fact that changed meanwhile
        raises `ConflictError` (its text now in `.detail["current"]`)."""
        call = calls.edit(
            fact_id,
            text,
            expected_text=expected_text,
            scope=scope,
            project=project,
            until=until,
            review=review,
        )
        return cast(Fact, self._send(call))

    def forget(
        self,
        *,
        id: str | None = None,
        text: str | None = None,
        scope: Scope | None = None,
        project: str | None = None,
        erase: bool = False,
    ) -> Forgetting:
        """Forget a fact by `id` or `text` from every shard the bot may change here (or one
        `scope`); `erase=True` leaves no trace. `remaining` lists other bots' copies."""
        call = calls.forget(id=id, text=text, scope=scope, project=project, erase=erase)
        return cast(Forgetting, self._send(call))

    def feedback(self, fact_id: str, verb: FeedbackVerb) -> Feedback:
        """Say what a fact you used is worth: `useful` (still true: it gets `checked=` today),
        `outdated`, `wrong` or `do-not-use` (the last two take it out of prompts and recall at
        once and send it to a person's review)."""
        return cast(Feedback, self._send(calls.feedback(fact_id, verb)))

    def prompt(self, *, as_of: str | None = None) -> Prompt:
        """The memory section for this room's system prompt (`text`), with its notes and
        blocks; `stale` / `memory` say when the time budget ran out."""
        return cast(Prompt, self._send(calls.prompt(as_of=as_of)))

    def prompt_changes(self, previous: str) -> PromptChanges:
        """What was added, removed and left the section (still in memory) since the section
        text `previous` was built."""
        return cast(PromptChanges, self._send(calls.prompt_changes(previous)))

    def changes(self, since: int = 0, *, limit: int | None = None) -> Changes:
        """Every change in what this room may read after the cursor `since`, oldest first."""
        return cast(Changes, self._send(calls.changes(since=since, limit=limit)))

    def report_exchange(
        self,
        message: str,
        reply: str,
        *,
        message_id: str,
        reply_id: str,
        recalled: Iterable[str] = (),
        guests: bool = False,
        digest: str = "",
    ) -> ExchangeReceipt:
        """Hand a delivered exchange to the learner (queued, or skipped and why; `guests`:
        someone from outside the workspace took part, so nothing is learned from it).
        `digest`: the `prompt()` section's digest the reply was built with; `sources` in the
        receipt counts what was recorded as retrieved, injected and cited."""
        call = calls.report_exchange(
            message,
            reply,
            message_id=message_id,
            reply_id=reply_id,
            recalled=recalled,
            guests=guests,
            digest=digest,
        )
        return cast(ExchangeReceipt, self._send(call))

    def memory_tool(self, command: Mapping[str, Any]) -> str:
        """Run one command of Claude's memory tool (`memory_20250818`; the tool call's `input`,
        e.g. `{"command": "view", "path": "/memories"}`) over this bot's memory in this room;
        the tool result's text. A command that can't be done raises `InvalidRequestError`
        (`memory_tool_refused`) whose message tells the model what to do instead."""
        return cast(str, (self._send(calls.memory_tool(command)))["result"])

    def fact_links(self, fact_id: str, *, depth: int = 1) -> dict[str, Any]:
        """A fact and its neighbourhood in what this room reads: `facts` (the fact itself
        among them when it is readable here) and `links`, `depth` hops out."""
        return cast(dict[str, Any], self._send(calls.fact_links(fact_id, depth=depth)))
