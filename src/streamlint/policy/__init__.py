"""What a team decides about a report before it is shown: its settings (`[tool.streamlint]`),
deliberate changes recorded next to the code or accepted in a file, and findings placed at the
line the pull request changed. Reads the diff's report and the rulebook; knows no file format."""
