#!/usr/bin/env python3
"""v32e: the d = 256 producer kernel (128 x 64 tiles) spills 8 bytes when
causal; its two spill-free alternatives (32-key tiles with the overlap, or
no producer) compiled beside it for bench/prefill_sweep.py. Run from the
repository root: python3 bench/gen_d256_spill_trade.py"""
import json, os, subprocess, sys, glob
sys.path.insert(0,'bench')
from gen_check_kernels import case_ir
out='bench/kernels_d256'; index=[]
for name,(B,H,N,causal) in {'d256-4k-causal':(4,8,4096,'top_left'),'d256-8k-causal':(2,8,8192,'top_left'),'d256-2k-causal':(8,8,2048,'top_left'),'d256-4k':(4,8,4096,None)}.items():
    open('/tmp/g256.mlir','w').write(case_ir('bf16',B,H,H,N,N,256,causal,None))
    cfgs={}
    for key,opts in (('pick',''),('block-kv=32','block-kv=32'),('kv-loads=tma','kv-loads=tma')):
        tmp='/tmp/g256d'; os.system('rm -rf %s; mkdir -p %s'%(tmp,tmp))
        r=subprocess.run(['build/bin/attn-opt','/tmp/g256.mlir','--attn-gpu-pipeline=%s dump-dir=%s'%(opts,tmp),'-o','/dev/null'],capture_output=True,text=True)
        assert r.returncode==0, r.stderr
        j=glob.glob(tmp+'/*.json')[0]; k=os.path.basename(j)[:-5]
        os.system('cp %s/%s.* %s/'%(tmp,k,out))
        o=subprocess.run(['/usr/local/cuda/bin/ptxas','-arch=sm_90a','-v','%s/%s.ptx'%(out,k),'-o','/dev/null'],capture_output=True,text=True).stderr
        print(name,key,k[-40:],[l.split(',')[1].strip() for l in o.splitlines() if 'spill stores' in l])
        cfgs[key]=k
    pick=cfgs.pop('pick')
    cfgs['block-kv=64 (pick)']=pick
    index.append(dict(name=name,shape=['bf16',B,H,H,N,N,256,bool(causal)],pick=pick,configs=cfgs,refused={}))
json.dump(index,open(out+'/index.json','w'),indent=1)
