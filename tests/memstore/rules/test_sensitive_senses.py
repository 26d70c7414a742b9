"""The default sensitive keywords mean what they say: 30 sentences a team would not want in
shared memory (health and medical, procedures and conditions; pregnancy; a home address; legal
disputes; personal finances) are held, and 30 ordinary work sentences that share a word or a
word's root with them ("Confidentiality agreement", "the operations team", "medical devices",
"tech debt") pass. A keyword matches its own word forms (plural, past, -ing), never a word made
from it with another meaning."""

import json
from pathlib import Path

import pytest

from memstore.rules.sensitive import sensitive_in

LOCOMO = Path(__file__).resolve().parents[3].parent / "shared/bench/locomo-dev/facts.jsonl"

HELD = [
    "Bob is recovering from an operation on his knee",
    "Dana had an operation last week and is off until Monday",
    "Priya was diagnosed with diabetes in the spring",
    "Tom is on medication for his blood pressure",
    "Sam has been seeing a therapist since March",
    "Mia is pregnant with her second child",
    "Lee's wife had a miscarriage in June",
    "Ana goes on maternity leave in August",
    "Ravi starts paternity leave next month",
    "Jo is undergoing chemotherapy for breast cancer",
    "Kim was in hospital after a heart attack",
    "Carlos suffers from depression and panic attacks",
    "Eve has ADHD and prefers written briefs",
    "Noor is having IVF treatment this autumn",
    "Ben is in physiotherapy after a skiing injury",
    "Olga's home address is 14 Elm Street, Leeds",
    "Frank lives at 22 Baker Street, flat 3",
    "Grace is suing her former landlord",
    "The Hendersons are in a custody battle over their kids",
    "Ian was arrested last year for drink driving",
    "Bob's salary is 3,013 a month",
    "Lena is drowning in credit card debt",
    "Marco filed for bankruptcy in 2019",
    "Yuki has a doctor's appointment on Thursday",
    "Pat is in a legal dispute with his neighbour",
    "Hannah had a biopsy and is waiting for the results",
    "Omar is off sick with the flu this week",
    "The confidential Contoso figures must not leave finance",
    "Jin took a pay cut after the restructuring",
    "Rosa takes insulin before lunch",
]

PASSED = [
    "Confidentiality agreement signed with Contoso",
    "The operations team deploys on Tuesdays",
    "Runs the nightly operation on the staging cluster",
    "Recovering from the outage took two hours",
    "The hospital project for St Mary's ships in May",
    "Pays the AWS invoice on the 1st",
    "Tech debt in the billing service is the top risk",
    "The address of the home office is on the wiki",
    "Plans the diagnostics dashboard for Q3",
    "Prefers the window seat on long flights",
    "The team celebrated the launch with sushi",
    "Wants weekly reports to lead with decisions",
    "The legal team reviews every contract over 10k",
    "Booked the basketball court for Friday's team game",
    "Put the new office address in the website footer",
    "The patch recovered the lost sessions",
    "Our biggest client makes medical devices",
    "The release pipeline has a health check endpoint",
    "Sprint planning is on Monday mornings",
    "The marketing budget is 20k for Q3",
    "The team is sick of flaky tests",
    "Uses Python 3.12 for every new service",
    "The board meets quarterly in London",
    "Product review is every second Thursday",
    "Ops paid the cloud bill early this month",
    "Signed the data processing agreement with Fabrikam",
    "The support rota changes every quarter",
    "Expecting the new laptops to arrive on Monday",
    "The Lisbon team runs the pay-per-use pricing experiment",
    "Attacked the backlog with a bug bash on Friday",
]


def test_thirty_each_way():
    assert (len(HELD), len(PASSED)) == (30, 30)


@pytest.mark.parametrize("text", HELD)
def test_a_sentence_a_team_would_not_share_is_held(text):
    assert sensitive_in(text)


@pytest.mark.parametrize("text", PASSED)
def test_an_ordinary_work_sentence_passes(text):
    assert not sensitive_in(text)


def test_a_team_loses_few_lines_of_two_long_personal_conversations():
    """LoCoMo's dev conversations (353 lines of two friends' chats: careers, hobbies, family)
    lose 2 lines (0.6%), both a person's own health: "her own struggles with mental health",
    "a setback due to an injury". A career "in counseling and mental health" or "flooring helps
    avoid injuries" passes."""
    if not LOCOMO.exists():
        pytest.skip("../shared/bench/locomo-dev is not beside the repository")
    texts = [json.loads(line)["text"] for line in LOCOMO.read_text().splitlines()]
    held = [text for text in texts if sensitive_in(text)]
    assert len(texts) == 353
    assert len(held) == 2, held
    assert all("injury" in text or "struggles with mental health" in text for text in held)
