"""Project-local state under ``<project>/.termsprawl/``: ids, index, links, discovery."""
