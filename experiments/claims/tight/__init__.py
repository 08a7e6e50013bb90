"""Structured tight instances for the approximation claims: parametrised families, searched and certified."""
