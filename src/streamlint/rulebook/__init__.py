"""The rulebook: the restart-compatibility matrix loaded from `rules/*.toml` (`matrix`), what a
change is (`change`), the option tables (`options`), and the documentation generated from them
(`docs`, `pages`). Data in, verdicts out: it reads the model, never the extractor or a report."""
