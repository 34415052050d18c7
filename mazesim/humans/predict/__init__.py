"""Posterior predictive checks: fitted models walk a run's mazes beside its people (`run`), their
walks measured alike (`walks`, `_kernels`), compared maze by maze (`stats`), written (`output`); the
route checks of full-view runs (`routes`)."""
