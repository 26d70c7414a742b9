"""The word lists `memstore.upkeep.meaning` reads a fact with: negations, number and quantity
words, dates and times, words that are capitalised without being names, and the verbs of state
grouped by sense ("finished" and "completed" one sense; "cancelled" and "postponed" two).

Plain data and the inflections of a verb; no rules live here.
"""


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


def _list(words: str) -> list[str]:
    return words.split()


NEGATIONS = _set(
    "not no never none nobody nothing nowhere neither nor without cannot cant dont doesnt "
    "didnt isnt wasnt arent werent wont wouldnt couldnt shouldnt hasnt havent hadnt anymore"
)
# Verbs that turn a liking or a doing into its opposite, by sense.
_REFUSALS = {
    "dislike": "dislike hate detest loathe",
    "avoid": "avoid refuse skip",
}
NUMBER_WORDS = {
    word: str(value)
    for value, word in enumerate(
        _list(
            "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
            "fifteen sixteen seventeen eighteen nineteen twenty"
        )
    )
} | {
    "thirty": "30",
    "forty": "40",
    "fifty": "50",
    "sixty": "60",
    "seventy": "70",
    "eighty": "80",
    "ninety": "90",
    "hundred": "100",
    "hundreds": "100s",
    "thousand": "1000",
    "thousands": "1000s",
    "million": "1000000",
    "millions": "1000000s",
    "billion": "1000000000",
    "dozen": "12",
    "dozens": "12s",
    "half": "0.5",
    "quarter": "0.25",
    "first": "1",
    "second": "2",
    "third": "3",
    "fourth": "4",
    "fifth": "5",
    "tenth": "10",
    "once": "1x",
    "twice": "2x",
    "double": "2x",
    "triple": "3x",
    "single": "1",
    "pair": "2",
    "couple": "2",
    "both": "2",
}
QUANTITIES = _set(
    "all every each some most many few several more less fewer only always usually often "
    "sometimes rarely seldom occasionally again extra"
)
_MONTHS = _list(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
# "may" and "march" are also a modal and a verb: a month only when capitalised.
MONTHS_CAPITALISED = frozenset(_MONTHS)
DATE_WORDS = frozenset(
    [m for m in _MONTHS if m not in ("may", "march", "jan", "mar", "sep", "dec")]
    + _list(
        "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays "
        "thursdays fridays saturdays sundays weekday weekdays weekend weekends today tonight "
        "tomorrow yesterday ago recently lately soon earlier later last next previous "
        "upcoming past week weeks month months year years day days decade decades hour hours "
        "daily weekly monthly yearly annually nightly fortnight fortnightly biweekly "
        "morning mornings afternoon afternoons evening evenings night nights noon midnight "
        "spring summer autumn fall winter christmas easter birthday anniversary holiday "
        "holidays am pm o'clock before after until since during"
    )
)
# Capitalised words that are not names: openers, pronouns, days and the like (kept apart from
# names so "She" or "Monday" is never "a name that differs").
NOT_NAMES = _set(
    "a an the our we my his her their this that these those it its i i'm i've you your he "
    "she they them there here is are was were has had have do does did can will would "
    "should must may might no not every each all some any one two new old team weekly "
    "daily monthly and but or so if when while after before since until then also "
    "on in at of for to from by with about as also just still yes ok okay mr mrs ms dr "
    "monday tuesday wednesday thursday friday saturday sunday"
)
# Words that name someone by their tie to another ("Quim" / "Quim's mother": another person).
WHO = _set(
    "mother mom mum father dad parent sister brother sibling son daughter kid child children "
    "wife husband partner spouse boyfriend girlfriend fiance friend pal cousin niece nephew "
    "aunt uncle grandmother grandfather grandma grandpa grandparent boss manager colleague "
    "coworker mentor mentee team neighbour neighbor roommate landlord client customer"
)
# Words of direction, place or role: "moved to" / "moved from", "in Quito" / "near Quito".
RELATIONS = _set(
    "to from in into near at on with for against by over under above below toward towards "
    "onto off out via through across between among behind beyond inside outside except"
)
# Senses of verbs (and adjectives) of state: a fact in one sense is not a fact in another.
_SENSES = {
    "cancel": "cancel scrap abandon drop axe",
    "postpone": "postpone delay defer reschedule pause suspend",
    "move": "move relocate transfer",
    "start": "start begin launch commence open",
    "finish": "finish complete end conclude close done",
    "resume": "resume restart continue",
    "stop": "stop quit halt cease",
    "leave": "leave resign retire exit",
    "join": "join enroll enlist",
    "approve": "approve accept confirm",
    "reject": "reject decline deny veto",
    "pass": "pass succeed win",
    "fail": "fail lose flunk",
    "buy": "buy purchase acquire",
    "sell": "sell",
    "break": "break crash",
    "fix": "fix repair resolve",
    "hire": "hire recruit",
    "fire": "fire dismiss sack",
    "ship": "ship release deploy publish",
    "add": "add increase raise grow extend",
    "cut": "cut reduce decrease lower shrink shorten",
    "enable": "enable activate",
    "disable": "disable deactivate",
    "marry": "marry",
    "divorce": "divorce",
    "adopt": "adopt",
}
_IRREGULAR = {
    "begin": "began begun",
    "leave": "left",
    "sell": "sold",
    "buy": "bought",
    "break": "broke broken",
    "lose": "lost",
    "win": "won",
    "quit": "quit quitting",
    "cut": "cut cutting",
    "grow": "grew grown",
    "shrink": "shrank shrunk",
    "axe": "axed",
}
_DOUBLED = _set("cancel scrap drop stop ship quit plan")
INTENT = _set(
    "plan plans planned planning want wants wanted wanting hope hopes hoping "
    "intend intends intending consider considers considering thinking aim aims aiming "
    "going gonna will would might could should wish wishes wishing tries trying "
    "propose proposes proposed proposal"
)
PAST_MARKS = frozenset(["formerly", "previously"])


def _forms(lemma: str) -> set[str]:
    """A verb's inflections: "cancel" -> cancels, cancelled, canceled, cancelling, ..."""
    forms = {lemma, lemma + "s", lemma + "es"}
    stem = lemma[:-1] if lemma.endswith("e") else lemma
    forms |= {stem + "ed", stem + "ing", lemma + "d"}
    if lemma.endswith("y") and lemma[-2:-1] not in "aeiou":
        forms |= {lemma[:-1] + "ied", lemma[:-1] + "ies"}
    if lemma in _DOUBLED:
        forms |= {lemma + lemma[-1] + "ed", lemma + lemma[-1] + "ing"}
    forms |= set(_IRREGULAR.get(lemma, "").split())
    return forms


def _state_forms() -> dict[str, str]:
    table: dict[str, str] = {}
    for sense, lemmas in _SENSES.items():
        for lemma in lemmas.split():
            for form in _forms(lemma):
                table.setdefault(form, sense)
    return table


STATE_FORMS = _state_forms()
REFUSALS = {
    form: sense for sense, verbs in _REFUSALS.items() for v in verbs.split() for form in _forms(v)
}
