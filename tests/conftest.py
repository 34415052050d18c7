"""Shared test settings: hypothesis without deadlines (a first call compiles a numba kernel)."""


from hypothesis import settings

settings.register_profile("mazesim", deadline=None, max_examples=60)
settings.load_profile("mazesim")
