"""Expanding-core exact knapsack (minknap family): a numba kernel and its Python wrapper."""
