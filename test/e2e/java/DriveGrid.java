/*
 * Drives a browser through gridgate with Selenium's Java client (the classes inside the Selenium server jar),
 * unmodified. Run with Java 17's single-file launch; the test that runs it first puts the README's Java example
 * where the README_EXAMPLE line is, pointed at the grid under test.
 *
 * Usage: java -cp selenium-server-*.jar DriveGrid.java PAGE_URL [UPLOAD_FILE]
 * Prints one "ok: ..." line per check, then "session: <id>" and "passed: <n> checks"; a failed check throws,
 * so the program exits non-zero (after quitting the session). With UPLOAD_FILE, that file is uploaded through
 * the grid (LocalFileDetector) into the page's file input.
 */
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.remote.LocalFileDetector;
import org.openqa.selenium.remote.RemoteWebDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

public class DriveGrid {
  private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  // Generous: real Chromium on a busy machine can be slow.
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static int checks = 0;

  private static void check(String description, Object actual, Object expected) {
    if (!Objects.deepEquals(actual, expected)) {
      throw new AssertionError(description + ": expected " + expected + ", got " + actual);
    }
    checks++;
    System.out.println("ok: " + description);
  }

  public static void main(String[] args) throws Exception {
    String pageUrl = args[0];
    README_EXAMPLE
    System.out.println("session: " + ((RemoteWebDriver) driver).getSessionId());
    try {
      commands(driver, pageUrl);
      screenshot(driver);
      if (args.length > 1) upload((RemoteWebDriver) driver, pageUrl, Path.of(args[1]));
    } finally {
      driver.quit();
    }
    System.out.println("passed: " + checks + " checks");
  }

  private static void commands(WebDriver driver, String pageUrl) {
    driver.get(pageUrl + "/");
    check("title", driver.getTitle(), "gridgate test page");
    check("heading", driver.findElement(By.id("heading")).getText(), "Hello from 127.0.0.1");
    driver.findElement(By.cssSelector("input#name")).sendKeys("Duke");
    driver.findElement(By.id("greet")).click();
    new WebDriverWait(driver, WAIT).until(ExpectedConditions.textToBe(By.id("result"), "Hello, Duke"));
    check("result text", driver.findElement(By.id("result")).getText(), "Hello, Duke");
  }

  private static void screenshot(WebDriver driver) {
    byte[] png = ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES);
    check("screenshot is a PNG", Arrays.copyOf(png, 8), PNG_SIGNATURE);
    check("screenshot is not trivial", png.length > 2000, true);
  }

  /** LocalFileDetector sends the file to the grid (/se/file); the page then reads what the browser got. */
  private static void upload(RemoteWebDriver driver, String pageUrl, Path file) throws Exception {
    driver.setFileDetector(new LocalFileDetector());
    driver.get(pageUrl + "/upload");
    WebElement input = driver.findElement(By.id("file"));
    input.sendKeys(file.toAbsolutePath().toString());
    check("uploaded file name", driver.executeScript("return arguments[0].files[0].name", input),
        file.getFileName().toString());
    Object text = driver.executeAsyncScript(
        "const done = arguments[arguments.length - 1]; arguments[0].files[0].text().then(done);", input);
    check("uploaded file contents", text, Files.readString(file));
  }
}
