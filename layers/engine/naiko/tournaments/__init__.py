""":mod:`naiko.tournaments` holds the pure rules of tournaments (RULES.md §9): blind structures
and presets, prize tables and the Spin multiplier, and the seating of multi-table tournaments.
Standard library only, like the rest of the engine; the service stores and drives them."""
