"""Console forms: validation of what the browser sends, nothing more.

Choices and name patterns come from `memstore.vocabulary` (room kinds, tiers, fact types, name
rules) and the console's tabs, never restated here.
"""

import re

from django import forms

from memoryconsole.web.presenters.common import GROUPINGS, TAB_LABELS
from memstore.console.authoring import FactFields
from memstore.console.facts import DATE_FILTERS, IMPORTANCE_LEVELS, PAGE_SIZE, FactQuery
from memstore.console.people import PEOPLE_ACTIONS
from memstore.console.tokens import GRANT_LABELS, MEMBERSHIP_LABELS
from memstore.console.webhooks import OWNER_KINDS, WEBHOOK_ACTIONS
from memstore.errors import InvalidFact
from memstore.facts.markdown import MAX_TEXT_CHARS, day_check
from memstore.learning.activity import KINDS
from memstore.rooms.access import MAX_PROJECTS
from memstore.vocabulary import (
    FACT_ID_PATTERN,
    FACT_TYPES,
    GRANTS,
    MEMBERSHIPS,
    PERSON_PATTERN,
    ROOM_KINDS,
    ROOM_PATTERN,
    SLUG_PATTERN,
    TIERS,
    VISIBILITIES,
    anchored,
)

_MONTH_RE = re.compile(r"\d{4}-(0[1-9]|1[0-2])")


def _choices(values, blank: str | None = None) -> list[tuple[str, str]]:
    return ([("", blank)] if blank is not None else []) + [(v, v) for v in values]


class FactQueryForm(forms.Form):
    """The bot page's tab, search box and filters (all optional; bad values are dropped)."""

    tab = forms.ChoiceField(choices=list(TAB_LABELS.items()), required=False)
    scope = forms.CharField(required=False, max_length=100)
    q = forms.CharField(required=False, max_length=200, strip=False)
    tier = forms.ChoiceField(choices=_choices(TIERS, "any tier"), required=False)
    type = forms.ChoiceField(choices=_choices(FACT_TYPES, "any type"), required=False)
    month = forms.CharField(required=False, max_length=7)
    importance = forms.ChoiceField(
        choices=_choices(IMPORTANCE_LEVELS, "any importance"), required=False
    )
    dates = forms.ChoiceField(choices=_choices(DATE_FILTERS, "any"), required=False)
    cursor = forms.CharField(required=False, max_length=40)
    exact = forms.BooleanField(required=False)
    start = forms.IntegerField(required=False, min_value=1, max_value=10_000_000)
    group = forms.ChoiceField(choices=_choices(GROUPINGS, "none"), required=False)

    def grouping(self) -> str:
        """How the page's facts are grouped ("" for not at all)."""
        self.is_valid()
        return self.cleaned_data.get("group") or ""

    def query(self) -> FactQuery:
        """The validated query; a field that failed validation counts as not given."""
        self.is_valid()
        data = {k: v for k, v in self.cleaned_data.items() if v and k != "group"}
        if not _MONTH_RE.fullmatch(data.get("month", "")):
            data.pop("month", None)
        return FactQuery(limit=PAGE_SIZE, **data)


class FactRefForm(forms.Form):
    """Which fact a row is: the file it sits in and its identity."""

    file = forms.CharField(max_length=400)
    id = forms.RegexField(regex=anchored(FACT_ID_PATTERN))


class ScopedFactForm(forms.Form):
    """A fact named by its scope (`kind:name`) and identity, wherever its copies sit."""

    scope = forms.CharField(max_length=80)
    id = forms.RegexField(regex=anchored(FACT_ID_PATTERN))


class FactRefsForm(forms.Form):
    """The facts ticked on a page, each "file|fact id"."""

    def refs(self) -> list[tuple[str, str]]:
        """The (file, fact id) pairs sent that are well formed (others are dropped)."""
        refs = []
        for value in self.data.getlist("fact")[:500]:
            file, _, fact_id = value.rpartition("|")
            if file and re.fullmatch(FACT_ID_PATTERN, fact_id) and len(file) <= 400:
                refs.append((file, fact_id))
        return list(dict.fromkeys(refs))


class FactFieldsForm(forms.Form):
    """Every field of a fact a person sets: text, tier, date, type, visibility, importance."""

    text = forms.CharField(
        max_length=MAX_TEXT_CHARS,
        widget=forms.Textarea(attrs={"rows": 3, "maxlength": MAX_TEXT_CHARS}),
    )
    tier = forms.ChoiceField(choices=_choices(TIERS), initial="log", required=False)
    day = forms.DateField(
        label="Date", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    type = forms.ChoiceField(choices=_choices(FACT_TYPES), initial="fact", required=False)
    visibility = forms.ChoiceField(
        choices=_choices(VISIBILITIES), initial="context", required=False
    )
    importance = forms.FloatField(
        label="Importance (0–1)",
        required=False,
        min_value=0.0,
        max_value=1.0,
        widget=forms.NumberInput(attrs={"step": "0.1", "min": "0", "max": "1"}),
    )
    until = forms.DateField(
        label="True until",
        required=False,
        help_text="After this day it leaves prompts and recall (kept, listed as expired).",
        widget=forms.DateInput(attrs={"type": "date"}),
    )
    review = forms.DateField(
        label="Review by",
        required=False,
        help_text="From this day Health lists it for someone to check.",
        widget=forms.DateInput(attrs={"type": "date"}),
    )

    def detail_fields(self) -> list:
        """The bound fields besides the text, in the order a form shows them."""
        names = ("tier", "type", "visibility", "importance", "day", "until", "review")
        return [self[name] for name in names]

    def fact_fields(self) -> FactFields:
        """The validated fields (call after is_valid()); a field the request did not send is
        None, so an edit keeps what the fact has."""
        d = self.cleaned_data

        def sent(name: str, value):
            return value if name in self.data else None

        importance = d.get("importance")
        return FactFields(
            text=d["text"],
            tier=sent("tier", d.get("tier")) or None,
            day=d.get("day"),
            type=sent("type", d.get("type") or ""),
            visibility=sent("visibility", d.get("visibility") or ""),
            importance=sent("importance", "" if importance is None else importance),
            until=sent("until", d.get("until") or ""),
            review=sent("review", d.get("review") or ""),
        )


class FactAddForm(FactFieldsForm):
    """A new fact, and the scope (of the bot's page) it goes to."""

    scope = forms.ChoiceField()

    def __init__(self, *args, scopes: list[tuple[str, str]], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["scope"].choices = scopes
        self.order_fields(
            ["text", "scope", "tier", "type", "visibility", "importance", "day", "until", "review"]
        )


class FactEditForm(FactRefForm, FactFieldsForm):
    """Every field of a fact, with the text it had when the form was shown."""

    # A hand-written line may be longer than a save allows; it is only compared, never saved.
    expected = forms.CharField(strip=False)


class VersionRestoreForm(FactRefForm):
    """Which earlier version of a fact to restore: the time of the edit that replaced it."""

    at = forms.CharField(max_length=40)


class RestoreForm(forms.Form):
    """A recorded removal: the shard's history and the line's byte offset in it."""

    shard = forms.CharField(max_length=200)
    offset = forms.IntegerField(min_value=0)


class HistoryForm(forms.Form):
    """Which shard's history to show, only removals or everything, and where to continue."""

    shard = forms.CharField(required=False, max_length=200)
    removed = forms.BooleanField(required=False)
    before = forms.IntegerField(required=False, min_value=0)


class PromptForm(forms.Form):
    """The room to preview a bot's prompt memory for."""

    kind = forms.ChoiceField(choices=_choices(ROOM_KINDS), initial="direct")
    person = forms.RegexField(regex=anchored(PERSON_PATTERN), required=False)
    room = forms.RegexField(regex=anchored(ROOM_PATTERN), required=False)
    projects = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple)
    as_of = forms.DateField(required=False, input_formats=["%Y-%m-%d"])

    def __init__(self, *args, projects: list[str], people: list[str], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["projects"].choices = _choices(projects)
        self.people = people

    def clean_projects(self) -> list[str]:
        chosen = self.cleaned_data["projects"]
        if len(chosen) > MAX_PROJECTS:
            raise forms.ValidationError(
                f"At most {MAX_PROJECTS} projects can be in play in one room."
            )
        return chosen


class LearningForm(forms.Form):
    """Which kind of learning event to show, and where to continue."""

    kind = forms.ChoiceField(choices=_choices(KINDS, "all"), required=False)
    offset = forms.IntegerField(required=False, min_value=0)


class AboutQueryForm(forms.Form):
    """The About me page's search box, page offset and "as typed" (bad values are dropped)."""

    q = forms.CharField(required=False, max_length=200)
    offset = forms.IntegerField(required=False, min_value=0, max_value=1_000_000)
    exact = forms.BooleanField(required=False)
    group = forms.ChoiceField(
        required=False,
        choices=[("", "none"), ("bot", "bot"), ("room", "conversation"), ("type", "type")],
    )


class AboutAddForm(forms.Form):
    """A fact a person adds about themselves on About me: its text and the bot whose shard of
    their memory keeps it (the service checks the bot acts for them)."""

    text = forms.CharField(
        max_length=MAX_TEXT_CHARS,
        strip=True,
        error_messages={
            "required": "Write the fact first.",
            "max_length": f"A fact is at most {MAX_TEXT_CHARS} characters.",
        },
    )
    bot = forms.SlugField(max_length=63, error_messages={"required": "Choose a bot."})


class ControlForm(forms.Form):
    """A change of a person's memory controls: pause, resume, exclude or include a topic."""

    action = forms.ChoiceField(choices=_choices(("pause", "resume", "exclude", "include")))
    topic = forms.CharField(required=False, max_length=200)


class FactIdForm(forms.Form):
    """One fact by identity (forget everywhere)."""

    id = forms.RegexField(regex=anchored(FACT_ID_PATTERN))


class ReviewForm(forms.Form):
    """Proposals ("source:ref" each) to accept or reject; a text replaces a single one's."""

    decision = forms.ChoiceField(choices=[("accepted", "accept"), ("rejected", "reject")])
    text = forms.CharField(required=False, max_length=MAX_TEXT_CHARS)

    def keys(self) -> list[str]:
        """The well-formed proposal keys sent (others are dropped)."""
        keys = self.data.getlist("key")[:200]
        return [k for k in keys if re.fullmatch(r"[a-z]+:[0-9A-Za-z_-]{1,64}", k)]


class BotForm(forms.Form):
    """A new bot: its slug (how bots and files name it), the name people know it by, and
    whether it is an app that writes workspace records."""

    slug = forms.CharField(max_length=64, label="Slug (lowercase letters, digits, - and _)")
    name = forms.CharField(max_length=120, required=False, label="Display name")
    app = forms.BooleanField(
        required=False, label="An app (its token writes workspace memory, e.g. a CRM sync)"
    )


class TokenForm(forms.Form):
    """A new bot token's name (what it is for: "prod", "laptop") and its grants (both unless a
    person unticks one: memory:read alone makes a token every write refuses)."""

    name = forms.CharField(max_length=80, required=False, label="Name (what it is for)")
    scopes = forms.MultipleChoiceField(
        choices=[(grant, f"{grant}: {GRANT_LABELS[grant]}") for grant in GRANTS],
        initial=list(GRANTS),
        widget=forms.CheckboxSelectMultiple,
        label="It may",
        error_messages={"required": "Choose at least one: memory:read or memory:write."},
    )


class MembershipForm(forms.Form):
    """A bot in a project, and whether it may only read its memory or read and write it."""

    project = forms.SlugField(max_length=63, label="Project")
    access = forms.ChoiceField(
        choices=[(m, MEMBERSHIP_LABELS[m]) for m in MEMBERSHIPS], initial="read_write"
    )


class AsOfForm(forms.Form):
    """The day to show a bot's memory as of."""

    day = forms.DateField(input_formats=["%Y-%m-%d"])

    def clean_day(self):
        try:
            return day_check(self.cleaned_data["day"], what="the day asked about")
        except InvalidFact as error:
            raise forms.ValidationError(error.message) from None


class NoteForm(forms.Form):
    """A note's new text, with the text it had when the form was shown (the length and secret
    rules are the service's: `memstore.prompt.notes.note_check`)."""

    text = forms.CharField(
        required=False, strip=False, max_length=20_000, widget=forms.Textarea(attrs={"rows": 10})
    )
    expected = forms.CharField(required=False, strip=False, max_length=20_000)


class NoteVersionForm(forms.Form):
    """Which earlier version of a note to restore."""

    version = forms.RegexField(regex=r"^\d{8}T\d{12}Z$")


class PeopleChangeForm(forms.Form):
    """One change on the people page: register, link or unlink a person, add or remove an
    editor, reset a room (the fields the action needs; names checked again by memstore)."""

    action = forms.ChoiceField(choices=_choices(PEOPLE_ACTIONS))
    person = forms.RegexField(regex=anchored(PERSON_PATTERN), required=False)
    bot = forms.RegexField(regex=anchored(SLUG_PATTERN), required=False)
    user = forms.CharField(required=False, max_length=150)
    room = forms.RegexField(regex=anchored(ROOM_PATTERN), required=False)


class KeywordsForm(forms.Form):
    """The workspace's sensitive keywords, one a line (the rules are the service's:
    `memstore.rules.sensitive.keywords_save`), or a reset to the default list."""

    action = forms.ChoiceField(choices=[("save", "save"), ("reset", "reset")], initial="save")
    words = forms.CharField(required=False, strip=False, max_length=40_000)


class WebhookForm(forms.Form):
    """One change on the webhooks page: register an endpoint, or disable one (the URL and the
    owner are checked again by memstore, with a message saying what is wrong)."""

    action = forms.ChoiceField(choices=_choices(WEBHOOK_ACTIONS))
    owner_kind = forms.ChoiceField(choices=_choices(OWNER_KINDS), required=False)
    owner = forms.RegexField(regex=anchored(SLUG_PATTERN), required=False)
    url = forms.CharField(required=False, max_length=500)
    endpoint = forms.IntegerField(required=False, min_value=1)
