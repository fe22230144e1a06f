#!/usr/bin/env python3
# Two builds of git-scribe, alternated run by run on the same bench
# directory (scripts/bench-ab-setup.sh), N runs each: medians of wall time
# and of CPU (the process and its children), and new/old. kind is stop (a
# turn, then `wrap --hook`), wrap (a commit, then `wrap --hint X`) or check
# (`check --since HEAD~500`). The builds run directly, not through git.
# Usage: scripts/bench-ab.py DIR N stop|wrap|check OLD_BINARY NEW_BINARY
import os,subprocess,sys,time,resource,statistics as S
d,n,kind,old,new=sys.argv[1],int(sys.argv[2]),sys.argv[3],sys.argv[4],sys.argv[5]
env=dict(os.environ, GIT_CONFIG_NOSYSTEM='1', HOME=d+'/home')
repo=d+'/repo'
def run(cmd,stdin=None):
    r0=resource.getrusage(resource.RUSAGE_CHILDREN)
    t=time.perf_counter(); subprocess.run(cmd,cwd=repo,env=env,stdin=stdin,stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL); w=(time.perf_counter()-t)*1000
    r1=resource.getrusage(resource.RUSAGE_CHILDREN)
    return w,(r1.ru_utime-r0.ru_utime+r1.ru_stime-r0.ru_stime)*1000
def prep(p): subprocess.run([p],cwd=repo,env=env,stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
R={old:[],new:[]}
for i in range(n):
    for b in ((old,new) if i%2==0 else (new,old)):
        if kind=='stop':
            prep(d+'/turn.sh'); R[b].append(run([b,'wrap','--hook'],stdin=open(d+'/stop.json')))
        elif kind=='check':
            R[b].append(run([b,'check','--since','HEAD~500']))
        else:
            prep(d+'/change.sh'); R[b].append(run([b,'wrap','--hint','X']))
a,b=S.median(x[0] for x in R[old]),S.median(x[0] for x in R[new])
ca,cb=S.median(x[1] for x in R[old]),S.median(x[1] for x in R[new])
print(f"{kind} load {open('/proc/loadavg').read().split()[0]} wall old {a:.1f} new {b:.1f} ({b/a:.3f})  cpu old {ca:.1f} new {cb:.1f} ({cb/ca:.3f})")
