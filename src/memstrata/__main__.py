"""``python -m memstrata``: the same commands as the ``memstrata`` executable."""

from memstrata.cli import main

if __name__ == "__main__":
    main()
