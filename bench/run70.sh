#!/bin/bash
# v70 (issue 14): the streaming model's cost per split, and the combine
# kernel's passes unrolled (no gain: reverted after this run).
#   bash bench/run70.sh a   # carry bench/kernels_carry70 (decode sets, xz)
#   bash bench/run70.sh p   # carry bench/kernels_carry70 and dist (a wheel)
#   bash bench/run70.sh d   # carry bench/kernels_carry70 (v70d's split counts)
# (a) v69c's random shapes and 8 new ones, picks and sweeps; the combine's
#     cost per split, rolled (kernels compiled before the unroll) and
#     unrolled, on the same configurations.
# (d) v70d: split counts 8-64 at B = 1-2 with one or two K/V heads.
# (p) the paged grid's picks and their neighbours at B = 1, 4, 8; then
#     attnopt.torch's tests against the wheel in dist/.
export PYTHONUNBUFFERED=1
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv > $R/gpu.txt
for t in bench/kernels_carry70/*.tar.xz; do tar xJf $t -C bench || exit 1; done
# decode_bench.py over each kernel set named, results in $R/<set>.
decode_sets() {
  for set in "$@"; do
    mkdir -p $R/$set
    timeout 250 python3 bench/decode_bench.py --graphs --confirm 3 --kernels bench/kernels_$set \
      --out $R/$set > $R/$set/log.txt 2>&1
    echo "$set rc=$?"
  done
}
case "$1" in
a) decode_sets v70a v70b slope70_rolled slope70_unrolled slope70_rolled_gqa slope70_unrolled_gqa ;;
d) decode_sets v70s v70s64 ;;
p)
  mkdir -p $R/v70p
  timeout 300 python3 bench/paged_bench.py --graphs --max-gb 16 --kernels bench/kernels_v70p \
    --out $R/v70p > $R/v70p/log.txt 2>&1
  echo "paged rc=$?"
  SITE=/tmp/attnopt-site
  python3 -m pip install --no-index --no-deps --no-cache-dir --target $SITE dist/attnopt-*.whl \
    > $R/pip.txt 2>&1
  (cd /tmp && PYTHONPATH=$SITE PATH=$SITE/bin:$PATH ATTN_OPT=$SITE/bin/attn-opt \
     ATTNOPT_CACHE_DIR=/tmp/attnopt-cache timeout 200 python3 -m pytest -q -p no:cacheprovider \
     $OLDPWD/python-bindings/tests/test_torch.py -rs > $R/pytest_torch.txt 2>&1
   echo "pytest rc=$?" >> $R/pytest_torch.txt)
  tail -5 $R/pytest_torch.txt ;;
esac
tar czf $OUT/r.tgz -C $OUT r && rm -rf $R
