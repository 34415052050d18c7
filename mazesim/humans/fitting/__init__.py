"""Models fitted to people's decisions: the junction models (`models`) and the node models' choices
(`node_choices`); one likelihood (`likelihood`: the floored log-probability with the lapse, the
lapse's profile, the errors), one cross-validation driver (`crossval`: folds over people or maze
groups, each model's summary) over the junction (`junction`) and node (`node`) fitters; results
(`results`), their files (`output`, `node_output`), rankings over people (`ranking`), shrinkage
and mixed logits, and recovery by simulated people (`recovery`)."""
