// Keeps the library non-empty; real sources come from subfolders.
