"""Console forms: validation of what the browser sends, nothing more."""

import re

from django import forms

from memstore.access import ROOM_KINDS
from memstore.console.facts import PAGE_SIZE, TAB_LABELS, FactQuery
from memstore.markdown import MAX_TEXT_CHARS
from memstore.vocabulary import FACT_TYPES, TIERS

_MONTH_RE = re.compile(r"\d{4}-(0[1-9]|1[0-2])")


def _choices(values, blank: str) -> list[tuple[str, str]]:
    return [("", blank)] + [(v, v) for v in values]


class FactQueryForm(forms.Form):
    """The bot page's tab, search box and filters (all optional; bad values are dropped)."""

    tab = forms.ChoiceField(choices=list(TAB_LABELS.items()), required=False)
    scope = forms.CharField(required=False, max_length=100)
    q = forms.CharField(required=False, max_length=200, strip=False)
    tier = forms.ChoiceField(choices=_choices(TIERS, "any tier"), required=False)
    type = forms.ChoiceField(choices=_choices(FACT_TYPES, "any type"), required=False)
    month = forms.CharField(required=False, max_length=7)
    cursor = forms.CharField(required=False, max_length=40)

    def query(self) -> FactQuery:
        """The validated query; a field that failed validation counts as not given."""
        self.is_valid()
        data = {k: v for k, v in self.cleaned_data.items() if v}
        if not _MONTH_RE.fullmatch(data.get("month", "")):
            data.pop("month", None)
        return FactQuery(limit=PAGE_SIZE, **data)


class FactRefForm(forms.Form):
    """Which fact a row is: the file it sits in and its identity."""

    file = forms.CharField(max_length=400)
    id = forms.RegexField(regex=r"^[0-9a-f]{16}$")


class FactEditForm(FactRefForm):
    """A new text for a fact, with the text it had when the form was shown."""

    expected = forms.CharField(max_length=600, strip=False)
    text = forms.CharField(
        max_length=MAX_TEXT_CHARS,
        widget=forms.Textarea(attrs={"rows": 3, "maxlength": MAX_TEXT_CHARS}),
    )


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

    kind = forms.ChoiceField(choices=[(k, k) for k in ROOM_KINDS], initial="direct")
    person = forms.CharField(required=False, max_length=64)
    room = forms.CharField(required=False, max_length=64)
    projects = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple)

    def __init__(self, *args, projects: list[str], people: list[str], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["projects"].choices = [(p, p) for p in projects]
        self.people = people

    def clean_projects(self) -> list[str]:
        chosen = self.cleaned_data["projects"]
        if len(chosen) > 3:
            raise forms.ValidationError("At most 3 projects can be in play in one room.")
        return chosen


class LearningForm(forms.Form):
    """Which kind of learning event to show, and where to continue."""

    kind = forms.RegexField(regex=r"^[a-z_]{1,20}$", required=False)
    offset = forms.IntegerField(required=False, min_value=0)
