"""Tests of a deployment past one machine: several OS processes on one database and one MEMORY_ROOT."""
