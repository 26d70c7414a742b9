"""The one gate for text going out to a model (`memstore.rooms.outgoing`), caller by caller:
each model call is made against a logging fake endpoint (a real HTTP server on loopback) and
what it was sent is checked: never a hidden, private-conversation, private-bot, withheld or
out-of-room fact, never a paused person's memory or an excluded topic; what the room may read
still goes. Then the guard: code that builds a prompt or calls a model without the gate fails
here, and at run time nothing ungated leaves."""

import pytest
from django.contrib.auth import get_user_model

from memstore.facts.markdown import fact_identity
from memstore.facts.paths import Scope
from memstore.index import index_sync
from memstore.learning.summarize import text_summarize
from memstore.llm.client import Prompt
from memstore.llm.config import learner_config, model_client
from memstore.models import Proposal
from memstore.recall import recall_search, rerankers, vectors
from memstore.recall.backfill import backfill_run
from memstore.registry.bots import bot_create, bot_private_set
from memstore.registry.people import person_add
from memstore.rooms.access import WORKSPACE, Context, Room
from memstore.rooms.outgoing import Cleared, UngatedText, outgoing
from memstore.rules.controls import memory_pause, topic_exclude
from memstore.upkeep.contradictions import contradictions_judge
from memstore.upkeep.proposals import proposal_record
from memstore.upkeep.store import bot_store_shards, store_facts
from memstore.upkeep.synthesis import synthesis_run
from tests.helpers import FakeModel, group, is_episode, learned, learner_on, log, write_facts
from tests.memstore.recall.test_rerank import FakeReranker

pytestmark = pytest.mark.django_db

BONUS = "Sam's bonus band is L5"
ALLOWED = "Deploys go out on Tuesdays"
ALLOWED_TOO = "Deploys happen every Tuesday afternoon"
PRIVATE = "Keeps a private diary of the deploys"
HIDDEN = "The deploy rota lives in the hidden sheet"
DANA = ("Dana's desk is by the window", "Dana likes a desk by the window")
ALICE = ("Alice drinks green tea", "Alice likes green tea in the morning")


def line(text: str, meta: str = "", day: int = 1) -> str:
    return f"- (2026-11-0{day}) {text}" + (f" <!-- {meta} -->" if meta else "")


@pytest.fixture
def people(memory_root):
    """sam excluded "bonus"; dana paused memory; alice has no controls."""
    for name in ("sam", "dana"):
        get_user_model().objects.create_user(name)
        person_add(name=name, username=name)
    person_add(name="alice")
    topic_exclude(person="sam", topic="bonus", by="sam", via="console")
    memory_pause(person="dana", by="dana", via="console")


@pytest.fixture
def store(memory_root, people):
    """ada's memory: two facts anyone may see, a private, a hidden and one on sam's topic;
    dana's (paused) and alice's user memory in ada's shards."""
    log(
        memory_root,
        "bot",
        "ada",
        "2026-11",
        line(ALLOWED),
        line(ALLOWED_TOO, day=2),
        line(PRIVATE, "visibility=private", 3),
        line(HIDDEN, "visibility=hidden", 4),
        line(BONUS, day=5),
    )
    log(memory_root, "user", "dana", "2026-11", *(line(t, day=n) for n, t in enumerate(DANA, 1)))
    log(memory_root, "user", "alice", "2026-11", *(line(t, day=n) for n, t in enumerate(ALICE, 1)))
    return memory_root


@pytest.fixture
def model(settings):
    fake = learner_on(settings, FakeModel(), mode="report")
    yield fake
    fake.close()


def sent(model: FakeModel) -> str:
    """Everything the model endpoint was sent, as one text."""
    return "\n".join(m["content"] for r in model.requests for m in r.get("messages", []))


FORBIDDEN = (PRIVATE, HIDDEN, BONUS, *DANA)


def test_the_learner_sends_a_group_exchange_only_what_the_group_may_read(store, model):
    message = "Sam's bonus goes up next month. We ship the app on Tuesdays."
    learned(group(person="alice"), model, "NONE", message_id="m1", message=message)
    prompt = sent(model)
    assert model.requests and ALLOWED in prompt and ALLOWED_TOO in prompt
    assert "We ship the app on Tuesdays." in prompt
    for text in (*FORBIDDEN, "bonus goes up"):
        assert text not in prompt, text  # the private fact above all: this is a group


def test_the_episode_call_sends_the_turns_without_an_excluded_topic(store, model, settings):
    settings.LEARNING_EPISODE_EVERY = 1
    message = "Sam's bonus goes up next month. We planned the Porto offsite."
    learned(group(person="alice"), model, "NONE", message_id="m1", message=message)
    episodes = [r for r in model.requests if is_episode(r)]
    assert len(episodes) == 1
    quoted = episodes[0]["messages"][1]["content"]
    assert "We planned the Porto offsite." in quoted and "bonus" not in quoted


def test_synthesis_never_sends_a_paused_persons_memory_hidden_private_or_withheld(store, model):
    synthesis_run(bot="ada", mode="report", client=model_client(learner_config()))
    prompt = sent(model)
    assert len(model.requests) == 2  # ada's own memory, and alice's: dana's is not asked about
    for text in (ALLOWED, ALLOWED_TOO, *ALICE):
        assert text in prompt
    for text in FORBIDDEN:
        assert text not in prompt, text


def test_a_proposal_whose_evidence_is_withheld_now_is_not_sent_for_a_second_opinion(store, model):
    # Proposed before dana paused memory: its second opinion would quote her facts.
    facts = {f.body: f for f in store_facts(shards=bot_store_shards("ada"))}
    proposal, _ = proposal_record(
        origin="synthesis",
        action="merge",
        bot="ada",
        evidence=[facts[DANA[0]], facts[DANA[1]]],
        text="Dana sits by the window",
    )
    synthesis_run(bot="ada", mode="report", client=model_client(learner_config()))
    prompt = sent(model)
    assert ALLOWED in prompt  # the pass went on with what may be sent
    for text in (*DANA, "Dana sits by the window"):
        assert text not in prompt, text
    proposal.refresh_from_db()
    assert (proposal.status, proposal.verdict) == (Proposal.PROPOSED, "")  # asked again later


def test_contradictions_are_asked_only_about_pairs_the_gate_clears(store, model):
    facts = {f.body: f for f in store_facts(shards=bot_store_shards("ada"))}
    pairs = [(facts[ALLOWED], facts[ALLOWED_TOO]), (facts[ALLOWED], facts[HIDDEN])]
    pairs += [(facts[DANA[0]], facts[DANA[1]]), (facts[ALLOWED_TOO], facts[BONUS])]
    done = contradictions_judge(bot="ada", pairs=pairs, client=model_client(learner_config()))
    prompt = sent(model)
    assert done.calls == 1 and ALLOWED in prompt and ALLOWED_TOO in prompt
    for text in FORBIDDEN:
        assert text not in prompt, text


def test_summarize_sends_the_known_facts_the_room_reads_and_the_text_without_a_topic(store, model):
    text = "We met today. Sam's bonus band moves to L6. The offsite is in Porto."
    text_summarize(ctx=group(), text=text, client=model_client(learner_config()))
    prompt = sent(model)
    assert ALLOWED in prompt and "The offsite is in Porto." in prompt
    for forbidden in (*FORBIDDEN, "moves to L6"):
        assert forbidden not in prompt, forbidden


@pytest.fixture
def remote_reranker(settings):
    server = FakeReranker(prefer=["beans"])
    settings.EMBEDDINGS = "none"
    settings.RECALL_RERANK = "openai:fake-rerank"
    settings.RECALL_RERANK_URL = server.url
    settings.RECALL_RERANK_TIMEOUT_MS = 5000
    settings.RECALL_RERANK_DAILY_TOKENS = 1_000_000
    rerankers.reranker_load.cache_clear()
    yield server
    rerankers.reranker_load.cache_clear()
    server.close()


def test_the_remote_reranker_never_sees_a_private_conversation_a_private_bot_or_a_topic(
    memory_root, people, remote_reranker
):
    bot_create(slug="scout")
    bot_private_set(bot="scout", private=True)
    log(memory_root, "bot", "scout", "2026-11", line("Coffee: scout keeps the coffee beans list"))
    log(memory_root, "room", "huddle", "2026-11", line("Coffee for the huddle"), bot="scout")
    shared = ["Coffee machine is on floor two", "Coffee beans are ordered monthly for coffee"]
    write_facts(
        memory_root,
        f"{WORKSPACE.shard('app').rel}/log/2026-11.md",
        *shared,
        "Coffee with Sam about his bonus band",
    )
    huddle = Context(
        bot="scout",
        room=Room("huddle", "group"),
        room_private=True,
        private_memory=True,
        own_room=True,
    )
    result = recall_search(ctx=huddle, query="coffee")
    assert len(result.items) == 4  # the room reads its own memory, the bot's, the workspace's
    documents = [d for r in remote_reranker.requests for d in r["documents"]]
    assert sorted(documents) == sorted(shared)


@pytest.fixture
def remote_embeddings(settings):
    endpoint = FakeModel()
    settings.EMBEDDINGS = "openai:words"
    settings.EMBEDDINGS_BASE_URL = endpoint.url
    settings.EMBEDDINGS_RETRY_WAIT = 0
    vectors.vectors_cache_clear()
    yield endpoint
    vectors.vectors_cache_clear()
    endpoint.close()


def test_a_remote_embeddings_endpoint_is_sent_only_what_every_reader_may_see(
    store, remote_embeddings
):
    bot_create(slug="scout")
    bot_private_set(bot="scout", private=True)
    log(store, "bot", "scout", "2026-11", line("Scout keeps the board drafts"))
    log(store, "room", "huddle", "2026-11", line("The huddle plans the offsite"), bot="scout")
    scopes = [Scope("bot", "ada"), Scope("bot", "scout"), Scope("room", "huddle")]
    index_sync(scopes=[*scopes, Scope("user", "dana"), Scope("user", "alice")])
    backfill_run()
    texts = {fact_identity(t): t for t in (ALLOWED, PRIVATE, HIDDEN, BONUS, *ALICE, *DANA)}
    vectors.vectors_ensure(texts)  # the other way facts are embedded: the same gate
    inputs = [i for r in remote_embeddings.requests for i in r["input"]]
    assert set(inputs) == {ALLOWED, ALLOWED_TOO}


def test_nothing_ungated_leaves_the_model_client_or_the_remote_reranker(model):
    client = model_client(learner_config())
    with pytest.raises(UngatedText):
        client.complete(Prompt(system="s", user=BONUS), max_tokens=10)
    with pytest.raises(UngatedText):
        Cleared(facts=())  # only the gate makes one
    reranker = rerankers.HttpReranker(model.url, "m")
    with pytest.raises(UngatedText):
        reranker.score("q", [BONUS], deadline=1e12)
    assert model.requests == []
    client.complete(Prompt(system="s", user="u", sent=outgoing([], ctx=None)), max_tokens=10)
    assert len(model.requests) == 1
