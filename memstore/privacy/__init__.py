"""Forgetting for good and taking memory away: the one erasure every front door uses (`erase`,
over the places in `stores` that can hold a fact's text), verify-forgotten (`forgotten`), and
exports (`export`, `person_export`)."""
