"""A class at once on one hub: N students in real browsers, measured (docs/hub.md).

    sudo .venv/bin/python benchmarks/hub_load.py [--students 5] [--keep DIR]

It starts a hub as ``make hub`` does (scripts/hub.py: PAM logins, each student's
JupyterLab run as that Unix user, nbgrader's exchange, 127.0.0.1 and free ports; not the
class's Ray cluster, which notebook 03 does not use) for an instructor and N students of
its own (accounts named with a prefix of this run's), and releases notebook 03
(03_momentum). Then N students at once, each in a browser context of
its own in headless Chromium (/usr/bin/chromium, reaching 127.0.0.1 only):

1. logs in on the hub's login page, which starts their server and opens JupyterLab;
2. fetches 03 in nbgrader's Assignments panel (Nbgrader → Assignment List → Fetch);
3. writes their answers (the instructor's solutions, saved through the server's
   contents API from the browser's session: a student who has done the work);
4. opens the notebook, waits for its kernel, runs all cells (Run → Run All Cells) and
   saves;
5. submits in the Assignments panel (Submit).

The instructor then collects (nbgrader collect): every student's submission must be
there. It prints, per student: login to server ready, login to a running (idle) kernel,
the Run All time, the peak memory of their kernel and of their server (RSS and PSS,
sampled every half second); and the CPU time of the hub and of its proxy over the run,
and of Chromium (which runs on this machine here, not on the students' laptops).

Everything it starts is stopped, and the accounts and files it made are removed, also when
it is interrupted (Ctrl-C, SIGTERM). ``--keep DIR`` keeps the hub's log and screenshots of
a failure there. Needs root, the class environment (``make hub-venv``) and Playwright
with Chromium (this environment's test extras). Not part of ``make test``: about two
minutes with 5 students on 2 cores.
"""
import argparse
import asyncio
import json
import os
import platform
import pwd
import shutil
import signal
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import urlparse

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / 'scripts'))
import hub  # noqa: E402

NAME = '03_momentum'
NOTEBOOK = REPO / 'notebooks' / (NAME + '.ipynb')
CHROMIUM = '/usr/bin/chromium'
CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
                 '--no-first-run', '--disable-background-networking',
                 '--disable-component-update', '--disable-sync']
#: Each student's lab renders every cell at once (JupyterLab otherwise draws cells as they
#: scroll into view, and the prompts the run is followed by would be missing).
LAB_SETTINGS = {'notebook-extension/tracker': {'windowingMode': 'none'},
                'apputils-extension/notification': {'fetchNews': 'false'}}

STEP_S = 300            # the longest one step (login, fetch, Run All ...) may take
SAMPLE_S = 0.5          # how often the processes' memory is read
CODE_PROMPTS = '.jp-CodeCell .jp-InputArea-prompt'
KERNEL_IDLE = '.jp-Notebook-ExecutionIndicator[data-status="idle"]'
DIRTY_TAB = '.lm-DockPanel-tabBar .lm-TabBar-tab.jp-mod-dirty'
MiB = 2 ** 20


class LoadError(Exception):
    """The run could not go on; the message says where."""


def _nbgrader_cell(cell):
    return cell.get('metadata', {}).get('nbgrader', {})


def solved(student_version, instructor_version):
    """The student version with every answer cell holding the instructor's solution."""
    solutions = {_nbgrader_cell(c)['grade_id']: ''.join(c['source'])
                 for c in instructor_version['cells'] if _nbgrader_cell(c).get('solution')}
    for cell in student_version['cells']:
        grade_id = _nbgrader_cell(cell).get('grade_id')
        if grade_id in solutions:
            cell['source'] = solutions[grade_id]
    return student_version


class Sampler(threading.Thread):
    """Peak RSS and PSS of each student's kernel and server, and the CPU time they used,
    read every SAMPLE_S."""

    def __init__(self, students):
        super().__init__(daemon=True)
        self.uids = {pwd.getpwnam(name).pw_uid: name for name in students}
        self.peaks = {}                  # (student, 'kernel' | 'server') -> [rss, pss]
        self.cpu = {}                    # (student, role, pid) -> CPU seconds so far
        self.halt = threading.Event()

    def run(self):
        import psutil
        while not self.halt.wait(SAMPLE_S):
            for proc in psutil.process_iter(['uids', 'cmdline']):
                uids = proc.info['uids']
                if not uids or uids.real not in self.uids:
                    continue
                cmdline = ' '.join(proc.info['cmdline'] or ())
                role = ('kernel' if 'ipykernel_launcher' in cmdline else
                        'server' if 'jupyterhub-singleuser' in cmdline else None)
                if role is None:
                    continue
                try:
                    memory, times = proc.memory_full_info(), proc.cpu_times()
                except psutil.Error:      # it ended between the listing and the read
                    continue
                student = self.uids[uids.real]
                self.cpu[student, role, proc.pid] = times.user + times.system
                peak = self.peaks.setdefault((student, role), [0, 0])
                peak[0], peak[1] = max(peak[0], memory.rss), max(peak[1], memory.pss)


def cpu_seconds(pid):
    """User + system CPU seconds of process ``pid`` and its children that ended."""
    import psutil
    times = psutil.Process(pid).cpu_times()
    return times.user + times.system


def _proxy_pid(the_hub):
    return int((the_hub.layout.state / 'proxy.pid').read_text())


class Student:
    """One student's browser session and what it measured."""

    def __init__(self, name, password, base, context, answers):
        self.name, self.password, self.base = name, password, base
        self.context, self.answers = context, answers
        self.page = None
        self.times = {}

    @property
    def server(self):
        return '%s/user/%s' % (self.base, self.name)

    async def _xsrf(self):
        for cookie in await self.context.cookies(self.server + '/'):
            if cookie['name'] == '_xsrf':
                return cookie['value']
        raise LoadError("%s's server set no _xsrf cookie" % self.name)

    async def _menu(self, menu, item):
        page = self.page
        for _ in range(3):              # a click on a menu still opening can be lost
            await page.locator('.lm-MenuBar-itemLabel', has_text=menu).first.click()
            entry = page.locator('.lm-Menu-itemLabel', has_text=item).first
            try:
                await entry.click(timeout=5_000)
                return
            except Exception:
                await page.keyboard.press('Escape')
        raise LoadError('%s: the menu item %s → %s did not open' % (self.name, menu, item))

    async def log_in(self):
        page = self.page = await self.context.new_page()
        page.set_default_timeout(STEP_S * 1000)
        start = time.monotonic()
        await page.goto(self.base + '/hub/login', wait_until='domcontentloaded')
        await page.fill('input[name=username]', self.name)
        await page.fill('input[name=password]', self.password)
        await page.click('input[type=submit], button[type=submit]')
        # The hub spawns the server, shows its progress, then sends the browser to the lab.
        await page.wait_for_url('**/user/%s/lab**' % self.name)
        await page.wait_for_selector('#jp-main-dock-panel')
        self.times['server'] = time.monotonic() - start
        return start

    async def fetch_and_answer(self):
        page = self.page
        await self._menu('Nbgrader', 'Assignment List')
        fetch = page.locator('#released_assignments_list button', has_text='Fetch')
        await fetch.first.click()
        await page.locator('#fetched_assignments_list .list_item',
                           has_text=NAME).first.wait_for()
        path = '%s/api/contents/%s/%s.ipynb' % (self.server, NAME, NAME)
        headers = {'X-XSRFToken': await self._xsrf()}
        reply = await page.request.get(path, headers=headers)
        if not reply.ok:
            raise LoadError('%s cannot read the fetched notebook: %s' % (self.name, reply.status))
        notebook = solved((await reply.json())['content'], self.answers)
        reply = await page.request.put(path, headers=headers, data=json.dumps(
            {'type': 'notebook', 'format': 'json', 'content': notebook}))
        if not reply.ok:
            raise LoadError('%s cannot save their answers: %s' % (self.name, reply.status))

    async def _wait_for_kernel(self):
        """Until the server holds one session for the notebook with an idle kernel, the
        same for 2 s (the page's indicator can say idle before the session's kernel runs)."""
        seen, since = None, time.monotonic()
        deadline = since + STEP_S
        while time.monotonic() < deadline:
            reply = await self.page.request.get(self.server + '/api/sessions', headers={
                'X-XSRFToken': await self._xsrf()})
            sessions = [s for s in await reply.json() if s['path'].endswith(NAME + '.ipynb')]
            kernel = sessions[0]['kernel'] if len(sessions) == 1 else None
            current = kernel['id'] if kernel and kernel['execution_state'] == 'idle' else None
            if current != seen:
                seen, since = current, time.monotonic()
            elif current is not None and time.monotonic() - since >= 2:
                return since
            await self.page.wait_for_timeout(250)
        raise LoadError("%s's kernel was not idle within %d s" % (self.name, STEP_S))

    async def open_notebook(self, login_started):
        page = self.page
        await page.goto('%s/lab/tree/%s/%s.ipynb?reset' % (self.server, NAME, NAME),
                        wait_until='domcontentloaded')
        await page.wait_for_selector('.jp-Notebook .jp-Cell')
        await page.wait_for_selector(KERNEL_IDLE)
        self.times['kernel'] = await self._wait_for_kernel() - login_started

    async def run_all(self):
        page = self.page
        start = time.monotonic()
        for _ in range(3):
            await self._menu('Run', 'Run All Cells')
            try:    # queued cells show [*]
                await page.wait_for_function(
                    '''selector => [...document.querySelectorAll(selector)].some(
                         p => /\\[\\*\\]/.test(p.textContent))''', arg=CODE_PROMPTS,
                    timeout=10_000)
                break
            except Exception:
                continue
        await page.wait_for_function(
            '''selector => {
                 const prompts = [...document.querySelectorAll(selector)];
                 return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
               }''', arg=CODE_PROMPTS)
        await page.wait_for_selector(KERNEL_IDLE)
        self.times['run_all'] = time.monotonic() - start
        errors = await page.locator('.jp-OutputArea-output[data-mime-type='
                                    '"application/vnd.jupyter.stderr"]').count()
        tracebacks = await page.locator('.jp-RenderedText[data-mime-type='
                                        '"application/vnd.jupyter.error"]').count()
        if tracebacks:
            raise LoadError("%s's Run All raised (%d error outputs, %d stderr)"
                            % (self.name, tracebacks, errors))
        await page.locator('.jp-Notebook').first.click()
        await page.keyboard.press('Control+s')
        await page.wait_for_function('selector => !document.querySelector(selector)',
                                     arg=DIRTY_TAB)

    async def submit(self):
        page = self.page
        await self._menu('Nbgrader', 'Assignment List')
        await page.locator('#fetched_assignments_list button', has_text='Submit').first.click()
        await page.locator('#submitted_assignments_list .list_item',
                           has_text=NAME).first.wait_for()

    async def session(self):
        started = await self.log_in()
        await self.fetch_and_answer()
        await self.open_notebook(started)
        await self.run_all()
        await self.submit()


def _local_only(route):
    if urlparse(route.request.url).hostname == '127.0.0.1':
        return route.continue_()
    return route.abort()


async def run_class(the_hub, answers, keep):
    """Every student's session at once, each in its own browser context; returns them."""
    from playwright.async_api import async_playwright
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                          args=CHROMIUM_ARGS)
        try:
            students = []
            for name in the_hub.roster.students:
                context = await browser.new_context(viewport={'width': 1100, 'height': 720})
                await context.route('**/*', _local_only)
                students.append(Student(name, the_hub.passwords[name], the_hub.url,
                                        context, answers))
            results = await asyncio.gather(*(s.session() for s in students),
                                           return_exceptions=True)
            failed = [(s, r) for s, r in zip(students, results) if isinstance(r, BaseException)]
            for student, _ in failed:
                if keep and student.page is not None:
                    await student.page.screenshot(path=str(keep / ('%s.png' % student.name)))
            if failed:
                raise LoadError('; '.join('%s: %s' % (s.name, str(e).splitlines()[0] if str(e)
                                                      else type(e).__name__)
                                          for s, e in failed))
            return students, browser_cpu(the_hub.process.pid)
        finally:
            await browser.close()


def browser_cpu(hub_pid):
    """CPU seconds of this run's Chromium: the processes below this one but outside the
    hub's (the Playwright driver and the browser it started), read while they run."""
    import psutil
    total = 0.0
    for child in psutil.Process().children():
        if child.pid == hub_pid:
            continue
        for proc in (child, *child.children(recursive=True)):
            try:
                times = proc.cpu_times()
            except psutil.NoSuchProcess:
                continue
            total += times.user + times.system
    return total


def report(students, sampler, cpu, wall, cores, load):
    def cpu_of(student, role):
        return sum(seconds for (name, r, _), seconds in sampler.cpu.items()
                   if (name, r) == (student, role))

    header = ('student', 'login→server s', 'login→kernel s', 'Run All s', 'kernel CPU s',
              'server CPU s', 'kernel RSS MiB', 'kernel PSS MiB', 'server RSS MiB',
              'server PSS MiB')
    rows = []
    for s in students:
        kernel = sampler.peaks.get((s.name, 'kernel'), (0, 0))
        server = sampler.peaks.get((s.name, 'server'), (0, 0))
        rows.append((s.name, s.times['server'], s.times['kernel'], s.times['run_all'],
                     cpu_of(s.name, 'kernel'), cpu_of(s.name, 'server'),
                     kernel[0] / MiB, kernel[1] / MiB, server[0] / MiB, server[1] / MiB))
    columns = list(zip(*rows))[1:]
    rows += [('median', *map(statistics.median, columns)), ('max', *map(max, columns))]
    print('\n| ' + ' | '.join(header) + ' |')
    print('|---' + '|--:' * (len(header) - 1) + '|')
    for name, *values in rows:
        print('| %s | %s |' % (name, ' | '.join(
            ('%.1f' if k < 5 else '%.0f') % v for k, v in enumerate(values))))
    print('\n%d students at once, %.1f s from the first login to the last submission, on '
          '%d cores (%s; load average %.1f before):'
          % (len(students), wall, cores, platform.machine(), load))
    for what, seconds in cpu.items():
        print('  %-9s %6.1f CPU s  (%4.1f%% of one core on average)'
              % (what, seconds, 100 * seconds / wall))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--students', type=int, default=5)
    parser.add_argument('--keep', type=Path,
                        help="a folder for the hub's log and screenshots of a failure")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        sys.exit('error: the hub makes Unix accounts and runs servers as them: run as root')
    if not os.path.exists(CHROMIUM):
        sys.exit('error: Chromium is missing at %s (apt-get install chromium)' % CHROMIUM)
    if args.students < 1:
        sys.exit('error: --students must be at least 1')
    # Stopped by a signal: clean up as after Ctrl-C.
    signal.signal(signal.SIGTERM, signal.default_int_handler)

    prefix = 'ld%s' % uuid.uuid4().hex[:6]
    roster = [prefix + '-teacher', *('%s-s%d' % (prefix, k + 1) for k in range(args.students))]
    taken = {account.pw_name for account in pwd.getpwall()}
    if taken & set(roster):
        sys.exit('error: the accounts %s exist already' % ', '.join(sorted(taken & set(roster))))
    work = Path(tempfile.mkdtemp(prefix='gluonedu-hub-load-'))
    os.chmod(work, 0o755)        # the hub directory's exchange is for every user
    keep = args.keep.resolve() if args.keep else None
    if keep:
        keep.mkdir(parents=True, exist_ok=True)
    log_path = work / 'jupyterhub.log'
    the_hub = None
    try:
        (work / 'roster.csv').write_text('username,role\n%s,instructor\n%s\n' % (
            roster[0], '\n'.join(name + ',student' for name in roster[1:])))
        print('preparing a hub for %d students (%s-*) ...' % (args.students, prefix),
              flush=True)
        the_hub = hub.prepare(hub.read_roster(work / 'roster.csv'), work / 'hub',
                              hub.free_port(), notebooks=[NOTEBOOK],
                              hub_venv=REPO / '.venv-hub',
                              ray='none')   # 03 does not use Ray
        for name in the_hub.roster.students:
            settings = Path(pwd.getpwnam(name).pw_dir) / '.jupyter' / 'lab' / 'user-settings'
            for setting, value in LAB_SETTINGS.items():
                path = settings / '@jupyterlab' / (setting + '.jupyterlab-settings')
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(value))
            account = pwd.getpwnam(name)
            for folder, _, files in os.walk(settings.parents[1]):
                for path in (folder, *(os.path.join(folder, f) for f in files)):
                    os.chown(path, account.pw_uid, account.pw_gid)
        with open(log_path, 'w') as log:
            the_hub.start(log)
        the_hub.wait_ready()
        course = Path(pwd.getpwnam(the_hub.roster.instructor).pw_dir) / 'course'
        instructor = hub.user_environment(the_hub.settings, 'instructor')

        def nbgrader(*command):
            result = hub.run_as(the_hub.roster.instructor, ['nbgrader', *command], instructor,
                                cwd=course, capture_output=True, text=True)
            if result.returncode:
                raise LoadError('nbgrader %s failed:\n%s' % (command[0],
                                                            result.stdout + result.stderr))

        nbgrader('release_assignment', NAME)
        answers = json.loads((course / 'source' / NAME / (NAME + '.ipynb')).read_text())

        sampler = Sampler(the_hub.roster.students)
        sampler.start()
        hub_pid, proxy_pid = the_hub.process.pid, _proxy_pid(the_hub)
        cpu_before = {'hub': cpu_seconds(hub_pid), 'proxy': cpu_seconds(proxy_pid)}
        load, started = os.getloadavg()[0], time.monotonic()
        print('%d students log in at once ...' % args.students, flush=True)
        students, chromium = asyncio.run(run_class(the_hub, answers, keep))
        wall = time.monotonic() - started
        cpu = {what: cpu_seconds(pid) - cpu_before[what]
               for what, pid in (('hub', hub_pid), ('proxy', proxy_pid))}
        cpu['Chromium'] = chromium
        sampler.halt.set()
        sampler.join()

        nbgrader('collect', NAME)
        collected = sorted(p.name for p in (course / 'submitted').iterdir())
        if collected != sorted(the_hub.roster.students):
            raise LoadError('collected %s, not every student' % collected)
        for name in collected:    # each hands in the notebook they ran, every cell run
            cells = json.loads((course / 'submitted' / name / NAME / (NAME + '.ipynb'))
                               .read_text())['cells']
            if not all(c['execution_count'] for c in cells if c['cell_type'] == 'code'):
                raise LoadError('%s submitted a notebook with cells not run' % name)
        report(students, sampler, cpu, wall, os.cpu_count(), load)
        print('collected: all %d submissions, every cell run' % len(collected))
    except (hub.HubError, LoadError) as err:
        sys.exit('error: %s' % err)
    except KeyboardInterrupt:
        print('interrupted: cleaning up', file=sys.stderr)
        sys.exit(130)
    finally:
        if the_hub is not None:
            the_hub.stop()
        if keep and log_path.exists():
            shutil.copy(log_path, keep / 'jupyterhub.log')
        hub.remove_users([name for name in roster if name not in taken])
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
