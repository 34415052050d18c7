"""People set beside something else: simulated agents on the same mazes (`runs`, `output`), a fit
made on another run (`transfer`), value-guided construal's awareness probes (`construal`)."""
