import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/*
 * java Split MS: leafA and leafB, the same loop run 300000 and 100000
 * times, called from split, called from main: a 75/25 split of CPU time
 * (tests/profrec-runtimes.sh, as split.py and split.js). MS milliseconds
 * of this thread's CPU, not wall: a loaded machine stretches the run,
 * not the profile. The clock read every round is no skew here, unlike
 * split.py's under profrec --python: the cpu-clock event samples the
 * thread in its own CPU time, where it runs (75-76% for leafA beside
 * three busy loops on two cores, as split.js).
 */
public class Split {
	static long leafA(int n) { long s = 0; for (int i = 0; i < n; i++) s += (long) i * i % 7; return s; }
	static long leafB(int n) { long s = 0; for (int i = 0; i < n; i++) s += (long) i * i % 7; return s; }
	static long split(long ms) {
		ThreadMXBean mx = ManagementFactory.getThreadMXBean();
		long end = mx.getCurrentThreadCpuTime() + ms * 1000000L, t = 0;
		while (mx.getCurrentThreadCpuTime() < end) { t += leafA(300000); t += leafB(100000); }
		return t;
	}
	public static void main(String[] args) { System.out.println(split(Long.parseLong(args[0]))); }
}
