"""What people run: the ``parlour`` command line and its terminal front ends."""
