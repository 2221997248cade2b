"""From files and git refs to reports: one pair of files (`files`), every job changed between two
refs (`check`), the repository's modules each job imports (`modules`), queries that moved
between files (`crossfile`), and git as a read-only source of versions (`git`)."""
