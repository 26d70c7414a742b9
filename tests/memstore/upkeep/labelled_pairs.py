"""The labelled set the duplicate thresholds were chosen on, each pair marked `same` (a
duplicate: reworded lightly, or a paraphrase saying the same thing: keeping the fuller of the
two loses nothing) or `different` (about the same subject but saying something else,
contradictions included). Plain data; the tests and `bench upkeep` measure precision and
recall on it.

- PAIRS: 66 written pairs (18 light edits, 18 paraphrases, 24 related, 6 swaps: one or two
  words of a sentence swapped for others, the look-alikes a generated store is full of).
- LOCOMO_PAIRS: 50 pairs of real facts from the LoCoMo dev split (../shared/bench/locomo-dev,
  CC BY-NC 4.0: referenced by fact id, its text is not copied here), labelled by reading both:
  the 42 pairs of one conversation that bge-small puts at cosine >= 0.90 with word overlap
  >= 0.30 or >= 0.85 with overlap >= 0.40, and 8 near misses below that (same person and
  topic, different facts: "Gina lost her job at Door Dash" / "Jon lost his job at Door Dash").
  `locomo_pairs()` loads their texts.
"""

import json
from pathlib import Path

# (first, second, label, group): group is "light" (small edits), "paraphrase" or "related".
PAIRS: list[tuple[str, str, str, str]] = [
    ("Prefers dark mode in every editor", "prefers dark mode in every editor.", "same", "light"),
    (
        "Alice wants weekly reports to lead with decisions",
        "Alice wants weekly reports to lead with the decisions",
        "same",
        "light",
    ),
    (
        "The staging server is rebooted every Sunday night",
        "Staging server is rebooted every Sunday night",
        "same",
        "light",
    ),
    (
        "Uses pnpm instead of npm for the web app",
        "Uses pnpm, not npm, for the web app",
        "same",
        "light",
    ),
    (
        "Team standup is at 9:30 on weekdays",
        "The team standup is at 9:30 on weekdays",
        "same",
        "light",
    ),
    ("Bob is allergic to peanuts", "Bob is allergic to peanuts!", "same", "light"),
    (
        "Deploys to production need two approvals",
        "Deploys to production need 2 approvals",
        "same",
        "light",
    ),
    (
        "Likes rooftop venues for team dinners",
        "Likes rooftop venues for team dinners a lot",
        "same",
        "light",
    ),
    (
        "The design system lives in the Figma file Atlas",
        "Design system lives in the Figma file Atlas",
        "same",
        "light",
    ),
    (
        "Wants invoices sent as PDF, not Word",
        "Wants invoices sent as PDF and not as Word",
        "same",
        "light",
    ),
    ("Carol leads the data platform team", "Carol leads the data-platform team", "same", "light"),
    ("Backups run nightly at 02:00 UTC", "backups run nightly at 02:00 utc", "same", "light"),
    (
        "The quarterly review is in the first week of April",
        "Quarterly review is in the first week of April",
        "same",
        "light",
    ),
    (
        "Prefers short answers with code first",
        "Prefers short answers, with code first",
        "same",
        "light",
    ),
    ("Dan works from Berlin on Mondays", "On Mondays Dan works from Berlin", "same", "light"),
    (
        "The API rate limit is 100 requests per minute",
        "API rate limit is 100 requests per minute",
        "same",
        "light",
    ),
    ("Keeps meeting notes in Notion", "Keeps the meeting notes in Notion", "same", "light"),
    (
        "The release branch is cut every second Tuesday",
        "Release branch is cut every second Tuesday",
        "same",
        "light",
    ),
    ("Prefers dark mode", "Likes dark themes in apps", "same", "paraphrase"),
    (
        "Bob cannot eat peanuts because of an allergy",
        "Bob is allergic to peanuts",
        "same",
        "paraphrase",
    ),
    ("The office is in Lisbon", "Our office is located in Lisbon", "same", "paraphrase"),
    ("Wants replies in Portuguese", "Prefers to be answered in Portuguese", "same", "paraphrase"),
    ("Drinks coffee without sugar", "Takes coffee black with no sugar", "same", "paraphrase"),
    ("Is vegetarian", "Doesn't eat meat", "same", "paraphrase"),
    ("Works remotely full time", "Works from home all the time", "same", "paraphrase"),
    (
        "The CI pipeline runs on GitHub Actions",
        "We use GitHub Actions for CI",
        "same",
        "paraphrase",
    ),
    (
        "Alice is the product manager for Atlas",
        "Alice manages the Atlas product",
        "same",
        "paraphrase",
    ),
    ("Hates long meetings", "Dislikes meetings that run long", "same", "paraphrase"),
    (
        "Weekly sync with the design team on Thursdays",
        "Meets the design team every Thursday",
        "same",
        "paraphrase",
    ),
    (
        "Prefers email over phone calls",
        "Would rather get an email than a call",
        "same",
        "paraphrase",
    ),
    ("The database is Postgres 16", "We run Postgres 16 as our database", "same", "paraphrase"),
    ("Learning Japanese in the evenings", "Studies Japanese at night", "same", "paraphrase"),
    ("Has two kids", "Is a parent of two children", "same", "paraphrase"),
    (
        "Budget for the offsite is 5000 euros",
        "The offsite budget is 5000 euros",
        "same",
        "paraphrase",
    ),
    (
        "Runs every morning before work",
        "Goes for a run each morning before starting work",
        "same",
        "paraphrase",
    ),
    ("Uses a standing desk", "Works at a standing desk", "same", "paraphrase"),
    ("The office is in Lisbon", "The office is in Porto", "different", "related"),
    ("Prefers dark mode", "Prefers light mode", "different", "related"),
    ("Standup is at 9:30", "Standup is at 10:00", "different", "related"),
    ("Bob is allergic to peanuts", "Bob is allergic to shellfish", "different", "related"),
    (
        "Alice leads the design team",
        "Alice joined the design team in March",
        "different",
        "related",
    ),
    ("Deploys need two approvals", "Deploys are frozen in December", "different", "related"),
    ("Drinks coffee without sugar", "Drinks tea in the afternoon", "different", "related"),
    ("Uses pnpm for the web app", "Uses poetry for the Python services", "different", "related"),
    (
        "The CI pipeline runs on GitHub Actions",
        "The CI pipeline takes twelve minutes",
        "different",
        "related",
    ),
    (
        "Wants replies in Portuguese",
        "Wants replies in English in group chats",
        "different",
        "related",
    ),
    ("Backups run nightly at 02:00 UTC", "Backups are kept for 30 days", "different", "related"),
    (
        "Learning Japanese in the evenings",
        "Learning Spanish in the evenings",
        "different",
        "related",
    ),
    (
        "The quarterly review is in April",
        "The annual review is in December",
        "different",
        "related",
    ),
    (
        "Budget for the offsite is 5000 euros",
        "Budget for the offsite was raised to 8000 euros",
        "different",
        "related",
    ),
    ("Carol leads the data platform team", "Carol reports to Dan", "different", "related"),
    ("Has two kids", "Has a dog named Pixel", "different", "related"),
    (
        "Prefers email over phone calls",
        "Prefers phone calls for urgent issues",
        "different",
        "related",
    ),
    (
        "The API rate limit is 100 requests per minute",
        "The API timeout is 30 seconds",
        "different",
        "related",
    ),
    ("Works remotely full time", "Works from the office on Fridays", "different", "related"),
    ("Keeps meeting notes in Notion", "Keeps the roadmap in Linear", "different", "related"),
    (
        "Dan works from Berlin on Mondays",
        "Dan works from Munich on Mondays",
        "different",
        "related",
    ),
    (
        "Release branch is cut every second Tuesday",
        "Hotfix branches are cut from main",
        "different",
        "related",
    ),
    ("The database is Postgres 16", "The database is MySQL 8", "different", "related"),
    ("Is vegetarian", "Is vegan since 2024", "different", "related"),
    (
        "Ana prefers sushi for team lunches",
        "Ana prefers ramen for team lunches",
        "different",
        "swap",
    ),
    (
        "Bruno is learning chess on weekends",
        "Bruno is learning sailing on weekends",
        "different",
        "swap",
    ),
    (
        "Carla's sister lives in the old town",
        "Carla's cousin lives in the old town",
        "different",
        "swap",
    ),
    ("Owns a dog called Pepper", "Owns a cat called Pepper", "different", "swap"),
    (
        "Keeps the budget notes in a notebook",
        "Keeps the hiring notes in a spreadsheet",
        "different",
        "swap",
    ),
    ("Hosts a pasta night every week", "Hosts a board game night every week", "different", "swap"),
]

# (LoCoMo fact id, LoCoMo fact id, label), labelled by reading the two texts.
LOCOMO_PAIRS: list[tuple[str, str, str]] = [
    ("conv-26:s12:Caroline:4", "conv-26:s12:Melanie:3", "different"),
    ("conv-30:s4:Jon:4", "conv-30:s5:Jon:2", "same"),
    ("conv-30:s13:Gina:3", "conv-30:s14:Gina:5", "same"),
    ("conv-30:s4:Gina:1", "conv-30:s13:Gina:3", "same"),
    ("conv-26:s9:Caroline:3", "conv-26:s14:Caroline:6", "same"),
    ("conv-30:s4:Gina:1", "conv-30:s14:Gina:5", "same"),
    ("conv-30:s8:Gina:3", "conv-30:s8:Gina:4", "same"),
    ("conv-26:s5:Caroline:1", "conv-26:s7:Caroline:1", "same"),
    ("conv-26:s4:Caroline:2", "conv-26:s5:Caroline:1", "same"),
    ("conv-30:s9:Gina:4", "conv-30:s14:Gina:5", "different"),
    ("conv-30:s18:Gina:4", "conv-30:s18:Jon:4", "different"),
    ("conv-26:s5:Melanie:1", "conv-26:s16:Melanie:3", "different"),
    ("conv-30:s1:Jon:1", "conv-30:s5:Jon:0", "different"),
    ("conv-30:s1:Jon:1", "conv-30:s9:Jon:0", "same"),
    ("conv-26:s3:Melanie:2", "conv-26:s3:Melanie:5", "same"),
    ("conv-30:s1:Gina:0", "conv-30:s6:Gina:0", "same"),
    ("conv-30:s2:Jon:4", "conv-30:s18:Jon:5", "same"),
    ("conv-30:s4:Jon:5", "conv-30:s8:Jon:3", "different"),
    ("conv-30:s10:Gina:4", "conv-30:s14:Gina:5", "same"),
    ("conv-26:s5:Caroline:0", "conv-26:s11:Caroline:0", "different"),
    ("conv-30:s15:Gina:0", "conv-30:s19:Gina:1", "same"),
    ("conv-30:s4:Gina:2", "conv-30:s4:Gina:4", "same"),
    ("conv-30:s8:Gina:3", "conv-30:s14:Gina:0", "same"),
    ("conv-30:s13:Gina:4", "conv-30:s17:Gina:2", "different"),
    ("conv-30:s2:Jon:4", "conv-30:s13:Gina:4", "different"),
    ("conv-30:s9:Gina:4", "conv-30:s13:Gina:3", "different"),
    ("conv-30:s17:Gina:2", "conv-30:s17:Jon:4", "different"),
    ("conv-30:s1:Jon:1", "conv-30:s13:Jon:0", "same"),
    ("conv-30:s4:Gina:2", "conv-30:s13:Gina:3", "different"),
    ("conv-30:s4:Jon:0", "conv-30:s14:Jon:1", "different"),
    ("conv-30:s5:Jon:0", "conv-30:s13:Jon:0", "different"),
    ("conv-30:s6:Jon:3", "conv-30:s6:Jon:5", "different"),
    ("conv-30:s9:Gina:4", "conv-30:s19:Gina:0", "same"),
    ("conv-30:s10:Gina:0", "conv-30:s14:Gina:1", "different"),
    ("conv-30:s14:Gina:5", "conv-30:s17:Gina:2", "same"),
    ("conv-30:s5:Gina:0", "conv-30:s16:Gina:0", "different"),
    ("conv-30:s16:Jon:2", "conv-30:s16:Jon:3", "same"),
    ("conv-30:s13:Jon:3", "conv-30:s13:Jon:7", "different"),
    ("conv-30:s10:Jon:4", "conv-30:s14:Jon:3", "different"),
    ("conv-30:s4:Gina:4", "conv-30:s13:Gina:3", "different"),
    ("conv-30:s12:Jon:1", "conv-30:s14:Jon:1", "different"),
    ("conv-30:s4:Jon:0", "conv-30:s9:Jon:6", "different"),
    ("conv-26:s8:Caroline:1", "conv-26:s8:Caroline:2", "different"),
    ("conv-26:s5:Caroline:0", "conv-26:s8:Caroline:1", "different"),
    ("conv-26:s5:Melanie:1", "conv-26:s5:Melanie:3", "different"),
    ("conv-30:s3:Gina:1", "conv-30:s3:Gina:2", "different"),
    ("conv-30:s13:Jon:2", "conv-30:s17:Jon:2", "different"),
    ("conv-30:s6:Gina:0", "conv-30:s6:Jon:1", "different"),
    ("conv-26:s11:Melanie:1", "conv-26:s11:Melanie:2", "different"),
    ("conv-30:s6:Jon:5", "conv-30:s17:Jon:4", "different"),
]


def locomo_pairs(folder: Path) -> list[tuple[str, str, str]]:
    """LOCOMO_PAIRS as (first text, second text, label), read from the LoCoMo facts file."""
    with (folder / "facts.jsonl").open(encoding="utf-8") as lines:
        texts = {row["fact_id"]: row["text"] for row in map(json.loads, lines)}
    return [(texts[a], texts[b], label) for a, b, label in LOCOMO_PAIRS]
