"""Retrieval agents can use: scored, budgeted and smart queries computed in the database."""
