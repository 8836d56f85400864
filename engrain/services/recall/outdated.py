"""After a correction, no unmarked old value among recall's first results (issue 61, point 5; docs/SPEC.md §6).

A correction ends the memory it replaces (it leaves recall), but the old value lives on in other words told
before it: a conversation's summary that retold it ("…she lives in Berlin…"), a line that said it in passing
("so I may never get a pet" before "we got a puppy"). Such a hit — told before the replacement, restating what
it replaced (`reading/duplicates.restates`) — is marked with what replaced it and when ("older than 5991d65a
(2022-06-01), which replaced «I live in Berlin»"), and keeps OUTDATED_WEIGHT of its score: the model reads the
newer memory first and knows the older line for what it is.
"""

from __future__ import annotations

from datetime import tzinfo

from engrain.reading import inputs
from engrain.reading.dates import local
from engrain.reading.duplicates import restates
from engrain.rules.digests import DIGEST
from engrain.services.recall.results import RecallHit
from engrain.storage.recall import Correction
from engrain.text.quoting import inline

OUTDATED_WEIGHT = 0.5
_OLD_CHARS = 60


def mark_outdated(hits: list[RecallHit], corrections: list[Correction], tz: tzinfo | None) -> list[RecallHit]:
    """The hits with those that restate a replaced value marked (`outdated`) and ranked by their lowered score;
    linked hits keep their place after the ranked ones. A digest is a model's summary written with the
    corrections in view, and a trait is no statement: neither is marked."""
    for hit in hits:
        if hit.kind in (DIGEST, "trait"):
            continue
        for c in corrections:
            earlier = hit.told_at < c.new_told_at and hit.id not in (str(c.new_id), str(c.old_id))
            if earlier and restates(hit.content, c.old, c.old_value):
                day = local(c.new_told_at, tz).date().isoformat()
                hit.outdated = (
                    f"older than {inputs.short_id(c.new_id)} ({day}), which replaced «{inline(c.old, _OLD_CHARS)}»"
                )
                hit.score = round(hit.score * OUTDATED_WEIGHT, 6)
                break
    ranked = sorted((h for h in hits if h.source != "linked"), key=lambda h: -h.score)
    return ranked + [h for h in hits if h.source == "linked"]
