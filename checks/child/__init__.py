"""Floor 3 of checks/: what runs inside the child process.

The bootstrap (`python checks/child/bootstrap.py SCRIPT ...`), the main of spawned processes, the
warm template that forks children, the step recorder, the op trace, the per-rank reporter of
distributed runs, msprobe speed-ups, the doctor probe and the loop observer. The profile
package's child side (checks/profile/child.py and what it imports) counts on this floor.
Imports launch/ and emulation/.
"""
