"""The Maze Search Task authors' protocol and tables: their value tables (`tables`), their grid
search per person (`grid`) with the planners' optional population prior (`population`), and their
model comparison reproduced on their data (`reproduce`)."""
