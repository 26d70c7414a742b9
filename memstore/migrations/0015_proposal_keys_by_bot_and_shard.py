"""Proposal keys name the bot and each fact's scope and shard, not the fact's identity alone
(bot B's stale facts were skipped when bot A had proposed the same text). Existing
proposals are re-keyed from their evidence, so a re-run still finds them."""

import hashlib
import json

from django.db import migrations


def _key(proposal) -> str:
    # A copy of memstore.upkeep.proposals.proposal_key as of this migration.
    facts = sorted(
        [item.get("scope", ""), item.get("bot", ""), item.get("id", "")]
        for item in proposal.evidence
    )
    text = " ".join(proposal.text.lower().split())
    payload = json.dumps([proposal.origin, proposal.action, proposal.bot, facts, text])
    return hashlib.sha1(payload.encode()).hexdigest()


def rekey(apps, schema_editor):
    Proposal = apps.get_model("memstore", "Proposal")
    for proposal in Proposal.objects.all().iterator(chunk_size=1000):
        key = _key(proposal)
        if key != proposal.key:
            Proposal.objects.filter(pk=proposal.pk).update(key=key)


class Migration(migrations.Migration):
    dependencies = [("memstore", "0014_people")]

    operations = [migrations.RunPython(rekey, migrations.RunPython.noop)]
