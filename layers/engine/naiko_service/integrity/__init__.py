""":mod:`naiko_service.integrity` reviews chip flow between accounts over stored hands (R10.3).

A batch analysis, never on the game path: it reads only stored
:class:`~naiko_service.hand_records.HandRecord` s (the Hands table, or an export of it,
:mod:`.sources`) and returns flags for a person to review, each with the hands that raised it
and a score (:mod:`.analysis`). Nothing about a flag reaches other players.

- :mod:`.analysis`: each hand's facts (chip flow between its players, decisions that gave
  chips away given the cards, heads-up betting rounds), summed per pair of accounts and scored:
  chip dumping, soft play, multi-accounting rings;
- :mod:`.population`: a simulated population of BOTs with planted colluders and innocent
  look-alikes, to measure precision and recall (``scripts/bench_integrity.py``);
- :mod:`.sources`: reading records from a JSON Lines export or a scan of the Hands table.

``docs/integrity.md`` says what each signal means, what it cannot see and how to run a review.
"""
