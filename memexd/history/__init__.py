"""Memory through time (SPEC §14): what it held at an instant (``asof``)."""
