"""People's recorded walks as a run: the readers of recorded tables (`sources`, `fields`, `vgc`),
the importer that writes a run of people (`importer`), and the run as the fitting code reads it
(`run`: mazes, trials, junction decisions)."""
