set -u
mkdir -p /tmp/q1 /tmp/site && cp .q1/cu13.part.aa /tmp/q1/
python3 -m pip install -q --no-index --no-deps --target /tmp/site dist/peers/*.whl 2>&1 | tail -1
rm -rf /tmp/oprt-main && python3 -m pip install -q --no-index --no-deps --target /tmp/oprt-main dist/main/*.whl && echo staged
