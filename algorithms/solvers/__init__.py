"""Solver helpers shared by the exact strategies: the Dantzig-bound reduction and integer profit scaling."""
