"""dyl_front_children.py - run by tests/tools/test_dyl_front.py under dyl record: a
Python program that starts the C program APP twice, with 2 and 5 calls.

    python3 dyl_front_children.py APP
"""
import subprocess
import sys

for n in (2, 5):
    subprocess.run([sys.argv[1], str(n), 'out', '0'], check=True)
