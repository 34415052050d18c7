"""Experiments that decide between theories (issue 31): how much a maze's walks tell node models
apart (`information`), search-task maps to choose from (`candidates`), the search for the mazes
that tell them apart best (`search`) and the designed study with its predicted recovery
(`study`)."""
