// StepUp — see DESIGN.md §2 for what this module owns.
