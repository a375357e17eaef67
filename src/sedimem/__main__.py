"""``python -m sedimem``: the same commands as the ``sedimem`` executable."""

from sedimem.cli import main

if __name__ == "__main__":
    main()
